"""Line marks for showing two texts side by side with their differences tinted.

Pure Python (no Qt): the views turn marks into line highlights.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

REMOVED = "removed"  # only on the left
ADDED = "added"  # only on the right
CHANGED = "changed"  # replaced lines, on both sides


@dataclass(frozen=True)
class LineMarks:
    left: tuple[tuple[int, str], ...]  # (0-based line, mark)
    right: tuple[tuple[int, str], ...]

    @property
    def same(self) -> bool:
        return not self.left and not self.right


def line_marks(left: str, right: str) -> LineMarks:
    a, b = left.split("\n"), right.split("\n")
    out_a: list[tuple[int, str]] = []
    out_b: list[tuple[int, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace":
            out_a += [(i, CHANGED) for i in range(i1, i2)]
            out_b += [(j, CHANGED) for j in range(j1, j2)]
        elif tag == "delete":
            out_a += [(i, REMOVED) for i in range(i1, i2)]
        elif tag == "insert":
            out_b += [(j, ADDED) for j in range(j1, j2)]
    return LineMarks(tuple(out_a), tuple(out_b))
