"""The lint Qt models over real lint reports."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint import LintOptions, lint_catalog
from axmem_gui.ui.lint.linter import clamp_budget
from axmem_gui.ui.lint.model import (
    EntryFindingsModel,
    FindingColumn,
    FindingRole,
    FindingsFilterModel,
    FindingsModel,
    entry_label,
)
from axmem_gui.ui.lint.severity import counts_text

CATALOG = Catalog(
    skills=(
        Skill("lookupInvoice", "Lookup invoice", "Find an invoice by number", "Steps."),
        Skill("dup", "", "", ""),
        Skill("dup", "Second", "Other", "x"),
        Skill("release", "Release", "Ship a release", "Tag and publish."),
    ),
    memories=(Memory("2024", "note"),),
)


def report():  # type: ignore[no-untyped-def]
    return lint_catalog(CATALOG, LintOptions(budget_tokens=10))


def test_findings_models_pass_the_model_tester(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    findings = report().findings
    assert {f.severity for f in findings} >= {"error", "warning"}
    model = FindingsModel()
    model.set_findings(findings)
    qtmodeltester.check(model)
    proxy = FindingsFilterModel()
    proxy.setSourceModel(model)
    proxy.set_severities("Errors")
    qtmodeltester.check(proxy)
    assert proxy.rowCount() == sum(1 for f in findings if f.severity == "error")
    entry = EntryFindingsModel()
    entry.set_findings([f for f in findings if f.entry_id == "lookupInvoice"])
    qtmodeltester.check(entry)
    assert entry.rowCount() >= 1


def test_findings_model_columns_and_roles() -> None:
    findings = report().findings
    model = FindingsModel()
    model.set_findings(findings)
    assert model.rowCount() == len(findings)
    for row, f in enumerate(findings):
        assert model.index(row, FindingColumn.Code).data() == f.code
        assert model.index(row, FindingColumn.Entry).data() == entry_label(f)
        assert model.index(row, FindingColumn.Hint).data() == f.hint
        assert model.index(row, 0).data(FindingRole.Finding) is f
        tip = model.index(row, 3).data(Qt.ItemDataRole.ToolTipRole)
        assert f.hint in tip and f.code in tip
        assert not model.index(row, 0).data(Qt.ItemDataRole.DecorationRole).isNull()
    budget = next(f for f in findings if f.code == "index-over-budget")
    assert entry_label(budget) == "catalog"
    assert model.data(QModelIndex()) is None
    assert model.headerData(0, Qt.Orientation.Horizontal) == "Severity"


def test_counts_text_and_budget_clamp() -> None:
    assert counts_text({"error": 2, "warning": 1, "info": 0}) == "2 errors · 1 warning"
    assert counts_text({"error": 0, "warning": 0, "info": 3}) == "3 info"
    assert counts_text({}) == "no findings"
    assert clamp_budget("1500") == 1500
    assert clamp_budget(10) == 50
    assert clamp_budget(None) == 2000
    assert clamp_budget(True) == 2000
    assert clamp_budget("lots") == 2000
