"""The code an actor turn ran, read from the model's reply exactly as Ax reads it.

Ax (24.0.21, `dsp/response/*`, `dsp/extract/*`, `agent/agentInternal/actorLoopTurn.ts`;
axllm 25.4.6 ports the same steps) takes the actor's one output field from, in order: a
structured-output function call's params; the reply as a JSON object; else the reply as
text, after a `Javascript Code:` / `javascriptCode:` label or, when no label is there and
not in strict mode, the whole reply (the signature has a single output field, so Ax assumes
the text is it: a streamed reply that is just the code runs as is). The value is a `code`
field, so its first Markdown fence is taken; the actor loop then normalises it (think tags,
fences), unless the raw reply holds more than one fenced block, which the runtime refuses as
written. A structured value is returned as given (its readers compare it normalised).
A reader that misses one of these steps calls a recorded turn's code foreign.
"""

from __future__ import annotations

import re
from typing import Any

FIELD = "javascriptCode"
TITLE = "Javascript Code"
LABELS = (TITLE, FIELD)  # Ax's `fieldLabels`: the title, then the name

_BLOCK = re.compile(r"```([A-Za-z]*)\s*([\s\S]*?)\s*```")  # fieldValue.ts extractBlock
_FIRST_FENCE = re.compile(r"```(?:[A-Za-z0-9_-]+)?[ \t]*\r?\n([\s\S]*?)\r?\n?```")
_OPENING_FENCE = re.compile(r"^```(?:[A-Za-z0-9_-]+)?[ \t]*\r?\n")
_CLOSING_FENCE = re.compile(r"\r?\n?```[ \t]*\Z")
_FENCE_LINE = re.compile(r"```([A-Za-z0-9_-]+)?[ \t]*\Z")
_THINK = re.compile(r"<think>[\s\S]*?</think>")
_ORPHAN_THINK = re.compile(r"[^\n]*</think>")
_EMPTY = re.compile(r"^(null|undefined)\s*$", re.IGNORECASE)


def reply_code(content: str | None, structured: list[Any]) -> str | None:
    """The code an actor reply makes Ax run (or refuse), None when Ax finds none in it.
    `content`: the reply's text; `structured`: the `javascriptCode` values of its
    structured-output function calls, then of the text read as a JSON object (payloads
    reads them out of the reply)."""
    for code in structured:
        # As given: the runtime refuses a value with several fences as it stands (axllm
        # checks the value itself), and a turn's code is compared after normalising.
        if isinstance(code, str):
            return code
    if not isinstance(content, str) or not content or structured:
        return None
    value = field_text(content)
    if not value or _EMPTY.match(value):
        return None  # Ax: the required field is missing, the reply is sent back for a fix
    return _as_run(extract_block(value), raw_code(content))


def field_text(content: str) -> str:
    """The output field's text: after the earliest label, or the whole reply."""
    found = [(i, label) for label in LABELS if (i := content.find(f"{label}:")) >= 0]
    if not found:
        return content.strip()
    start, label = min(found)
    return content[start + len(label) + 1 :].strip()


def extract_block(value: str) -> str:
    """A `code` field's value: the first fenced block's body, else the text."""
    match = _BLOCK.search(value)
    return match.group(2) if match else value


def raw_code(content: str) -> str:
    """The reply as the actor loop inspects it for several fences (`extractRawActorCode`)."""
    text = _ORPHAN_THINK.sub("", _THINK.sub("", content)).strip()
    at = text.find(f"{TITLE}:")
    return (text[at + len(TITLE) + 1 :] if at >= 0 else text).strip()


def _as_run(code: str, raw: str) -> str | None:
    if several_fences(raw):
        return raw  # refused by policy as the model wrote it
    trimmed = code.strip()
    return normalize(trimmed) if trimmed else None


def several_fences(code: str) -> bool:
    inside = False
    blocks = 0
    for line in re.split(r"\r?\n", code):
        fence = _FENCE_LINE.search(line)
        if fence is None:
            continue
        if inside and fence.group(1) is None:
            inside = False
            continue
        blocks += 1
        if blocks > 1:
            return True
        inside = True
    return False


def normalize(code: str) -> str:
    """Ax's `normalizeActorCode`."""
    text = _ORPHAN_THINK.sub("", _THINK.sub("", code.strip()).strip()).strip()
    fenced = _FIRST_FENCE.search(text)
    if fenced is not None:
        text = fenced.group(1).strip()
    while True:
        before = text
        text = _CLOSING_FENCE.sub("", _OPENING_FENCE.sub("", text, count=1), count=1).strip()
        if text == before:
            return text
