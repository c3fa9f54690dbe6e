"""The Agent Skills naming rule for a skill's folder (and so its id), and a fix.

The Agent Skills specification (agentskills.io, `specification.mdx`, and its reference
validator `skills-ref`) says a skill's `name`, which must also be its folder's name:
- is 1 to 64 characters (after NFKC normalization);
- holds lowercase letters, digits and hyphens only;
- does not start or end with a hyphen, and has no two hyphens in a row.

Ax itself takes any id; the studio warns about an id that breaks the rule, offers the
name `agent_skill_name` makes of it, and never exports a folder under a name that breaks
it (the folder gets that name and SKILL.md keeps the exact id, see skillsdir.py)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

MAX_NAME_CHARS = 64
#: What a new skill is called until it has a name of its own.
FALLBACK_NAME = "skill"


def agent_skill_name_problem(name: str) -> str | None:
    """Why `name` breaks the Agent Skills naming rule (None when it follows it)."""
    if not name:
        return "it is empty"
    if unicodedata.normalize("NFKC", name) != name:
        return "it changes under Unicode normalization (NFKC)"
    if len(name) > MAX_NAME_CHARS:
        return f"it is {len(name)} characters long (at most {MAX_NAME_CHARS})"
    if name != name.lower():
        return "it has uppercase letters"
    bad = sorted({c for c in name if not (c.isalnum() or c == "-")})
    if bad:
        shown = ", ".join(repr(c) for c in bad[:5])
        return f"it has characters other than letters, digits and hyphens ({shown})"
    if name.startswith("-") or name.endswith("-"):
        return "it starts or ends with a hyphen"
    if "--" in name:
        return "it has two hyphens in a row"
    return None


def is_agent_skill_name(name: str) -> bool:
    return agent_skill_name_problem(name) is None


def agent_skill_name(text: str, taken: Callable[[str], bool] = lambda _name: False) -> str:
    """A name that follows the rule, made of `text` (an id or a display name): ASCII
    lowercase words joined by single hyphens, at most 64 characters; `-2`, `-3`, … is
    added while `taken(name)` says the name is in use. "Deploy Freeze!" gives
    "deploy-freeze"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    # camelCase words apart ("postmortemTemplate" -> "postmortem-template")
    ascii_text = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", ascii_text)
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    base = "-".join(words)[:MAX_NAME_CHARS].strip("-") or FALLBACK_NAME
    candidate, n = base, 1
    while taken(candidate):
        n += 1
        suffix = f"-{n}"
        candidate = base[: MAX_NAME_CHARS - len(suffix)].rstrip("-") + suffix
    return candidate
