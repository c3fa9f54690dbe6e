"""What the lint dock's findings table filters and sorts by, apart from the Qt model that
shows it: each finding's filter text (`haystack`), each column's order as Qt orders the
column's text (`column_order`), and the rows a new report changed (`changed_rows`).

Plain functions over a report's findings, made a few thousand findings per C call (`RUN`)
and checking for cancellation between runs, so that `FindingsModel` can have a big
report's orders and haystacks made by a job on the task runner (`column_order_job`,
`haystacks_job`) without holding the GIL for long."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import IntEnum
from operator import attrgetter
from typing import Any

from axmem_gui.core.chunked_sort import RUN, no_check, stable_order
from axmem_gui.core.lint import Finding
from axmem_gui.core.lint.model import SEVERITY_ORDER
from axmem_gui.ui.tasks import Job, JobContext


class FindingColumn(IntEnum):
    Severity = 0
    Code = 1
    Entry = 2
    Message = 3
    Hint = 4


def entry_label(f: Finding) -> str:
    if f.entry_id is None:
        return "catalog"
    return f"{f.kind} '{f.entry_id}'"


def haystack(f: Finding) -> str:
    """What the dock's text filter looks in: code, entry, message and hint, lower case."""
    return f"{f.code}\n{entry_label(f)}\n{f.message}\n{f.hint}".lower()


def haystacks_of(
    findings: Sequence[Finding], check: Callable[[], None] = no_check
) -> list[str]:
    out: list[str] = []
    for start in range(0, len(findings), RUN):
        out += map(haystack, findings[start : start + RUN])
        check()
    return out


def haystacks_job(findings: tuple[Finding, ...]) -> Job:
    def job(ctx: JobContext) -> list[str]:
        return haystacks_of(findings, ctx.check)

    return job


def changed_rows(
    old: tuple[Finding, ...], new: tuple[Finding, ...]
) -> tuple[int, int, int]:
    """(start, old_end, new_end): `old[start:old_end]` became `new[start:new_end]`; the
    common head and tail are found by halving (tuple compares, same objects first)."""
    limit = min(len(old), len(new))
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if old[low:mid] == new[low:mid]:
            low = mid
        else:
            high = mid - 1
    start = low
    low, high = 0, limit - start
    while low < high:
        mid = (low + high + 1) // 2
        if old[len(old) - mid : len(old) - low] == new[len(new) - mid : len(new) - low]:
            low = mid
        else:
            high = mid - 1
    return start, len(old) - low, len(new) - low


#: A character outside the BMP: Python orders it after U+E000..U+FFFF, Qt (UTF-16 code
#: units) before.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_COLUMN_FIELDS: dict[int, str] = {
    FindingColumn.Code: "code",
    FindingColumn.Message: "message",
    FindingColumn.Hint: "hint",
}


def _sort_keys(
    findings: Sequence[Finding], column: int, check: Callable[[], None] = no_check
) -> list[Any]:
    """What each finding sorts by in `column`, ordered as Qt orders the column's text
    (severity: error, warning, info); made `RUN` findings per C call."""
    runs = [findings[start : start + RUN] for start in range(0, len(findings), RUN)]
    keys: list[Any] = []
    if column == FindingColumn.Severity:
        for part in runs:
            keys += map(SEVERITY_ORDER.__getitem__, map(attrgetter("severity"), part))
        return keys
    field = _COLUMN_FIELDS.get(column)
    astral = False
    for part in runs:
        texts: list[str] = (
            list(map(attrgetter(field), part))
            if field is not None
            else [entry_label(f) if column == FindingColumn.Entry else "" for f in part]
        )
        if not astral:
            joined = "\n".join(texts)
            astral = not joined.isascii() and _ASTRAL.search(joined) is not None
        keys += texts
        check()
    if astral:
        for start in range(0, len(keys), RUN):
            keys[start : start + RUN] = [
                t.encode("utf-16-be", "surrogatepass") for t in keys[start : start + RUN]
            ]
            check()
    return keys


def column_order(
    findings: Sequence[Finding], column: int, check: Callable[[], None] = no_check
) -> tuple[int, ...]:
    """The positions of `findings` in `column`'s ascending order, ties in report order (as
    Qt's sort; descending is all of it reversed). A few thousand findings per C call, so a
    job can sort a catalog's report without holding the GIL for long."""
    return tuple(stable_order(_sort_keys(findings, column, check), check))


def column_order_job(findings: tuple[Finding, ...], column: int) -> Job:
    def job(ctx: JobContext) -> tuple[int, ...]:
        return column_order(findings, column, ctx.check)

    return job
