"""The lint outcome's per-entry lookup: the same findings as the report, without an object
per linted entry for the cyclic collector to scan (100,000 findings at scale)."""

from __future__ import annotations

import gc
from pathlib import Path

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint import LintOptions, lint_catalog
from axmem_gui.ui.lint.linter import LintOutcome, _index

N = 400


def _catalog() -> Catalog:
    # Every entry has findings: padded ids, an empty description, invisible characters.
    skills = tuple(Skill(f" skill{i}", f"Skill {i}") for i in range(N))
    memories = tuple(Memory(f"mem{i}\u200b", f"note {i}") for i in range(N))
    return Catalog(skills=skills, memories=memories)


def test_for_entry_matches_the_report() -> None:
    report = lint_catalog(_catalog(), LintOptions(competition=False))
    outcome = LintOutcome(Path("w.axmem"), report, 0.0, _index(report))
    for kind, entry_id in (("skill", " skill7"), ("memory", "mem3\u200b"), ("skill", "none")):
        expected = tuple(f for f in report.findings if f.kind == kind and f.entry_id == entry_id)
        assert outcome.for_entry(kind, entry_id) == expected
    assert outcome.for_entry("skill", " skill7")  # the catalog does have findings
    assert outcome.for_entry("skill", "none") == ()


def test_per_entry_lookup_adds_no_tracked_object_per_entry() -> None:
    report = lint_catalog(_catalog(), LintOptions(competition=False))
    assert len({(f.kind, f.entry_id) for f in report.findings}) >= 2 * N
    gc.collect()
    before = len(gc.get_objects())
    by_entry = _index(report)
    gc.collect()  # containers of untracked objects only are untracked here
    grown = len(gc.get_objects()) - before
    assert sum(len(ids) for ids in by_entry.values()) >= 2 * N
    assert grown < N // 10, f"{grown} tracked objects for {2 * N} entries"
