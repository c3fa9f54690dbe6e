"""The size of the `### Available Skills` index against a token budget.

The index sits in every distiller and executor system prompt, so its size is paid on every
turn. Tokens are estimated as characters / 4 (UTF-16 units, as Ax counts), the usual rule
of thumb for English text with current tokenizers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from axmem_gui.core.ax.jstext import utf16_len
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.render import StageConfig, render_skills_section, skills_index_lines
from axmem_gui.core.catalog import Skill
from axmem_gui.core.lint.model import Finding, finding

CHARS_PER_TOKEN = 4


def estimate_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class IndexSize:
    chars: int
    tokens: int
    #: (skill id, characters of its index line), largest first.
    lines: tuple[tuple[str, int], ...]


def index_size(skills: Sequence[Skill], profile: AxProfile) -> IndexSize:
    """Size of the executor's index block as the model sees it (heading included)."""
    if not skills:
        return IndexSize(0, 0, ())
    section = render_skills_section(skills, "executor", profile, StageConfig())
    block = section.index_block if section is not None and section.index_block else ""
    chars = utf16_len(block)
    index_lines = skills_index_lines(skills, profile)
    lines = [(s.id, utf16_len(line)) for s, line in zip(skills, index_lines, strict=True)]
    lines.sort(key=lambda pair: -pair[1])
    return IndexSize(chars, estimate_tokens(chars), tuple(lines))


def budget_findings(size: IndexSize, budget_tokens: int) -> list[Finding]:
    if size.tokens <= budget_tokens:
        return []
    biggest = ", ".join(f"'{i}' ({n} chars)" for i, n in size.lines[:3])
    return [
        finding(
            "index-over-budget",
            "catalog",
            None,
            f"the Available Skills index is about {size.tokens} tokens ({size.chars} "
            f"characters / {CHARS_PER_TOKEN}), over the budget of {budget_tokens}; it is "
            "sent with every distiller and executor turn",
            f"Shorten the longest descriptions ({biggest}), merge overlapping skills, or "
            "raise the budget.",
        )
    ]
