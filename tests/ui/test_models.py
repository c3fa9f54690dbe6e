from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Memory
from axmem_gui.services.catalog import CatalogService
from axmem_gui.store import Workspace
from axmem_gui.ui.entry_table import PAGE, EntryRole, EntryTableModel
from axmem_gui.ui.navigator import NavigatorModel
from tests.helpers.store import raw


def test_navigator_model_is_consistent(qtmodeltester: ModelTester, sample_path: Path) -> None:
    model = NavigatorModel()
    qtmodeltester.check(model)
    for key, title in (("skills", "Skills"), ("suites", "Suites"), ("notes", "Notes")):
        model.add_section(key, title)
    with Workspace.open(sample_path) as ws:
        model.set_counts(ws.counts())
    model.set_badge("suites", "!")
    qtmodeltester.check(model)
    assert model.index(model.row_of("suites")).data() == "Suites  1  !"
    # A section the workspace does not count shows 0.
    assert model.index(model.row_of("notes")).data() == "Notes  0"


def test_entry_model_is_consistent_and_lazy(qtmodeltester: ModelTester, tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "big.axmem", create=True) as ws:
        with raw(ws).transaction():
            for i in range(PAGE * 3 + 7):
                raw(ws).memories.upsert(Memory(f"mem-{i:05d}", f"fact number {i}"))
        model = EntryTableModel(CatalogService(raw(ws)).table("memories"))
        # Every row of the list is a row of the model; only the first page is read.
        assert model.rowCount() == model.total() == PAGE * 3 + 7
        assert len(model.loaded()) == PAGE
        qtmodeltester.check(model)
        model = EntryTableModel(CatalogService(raw(ws)).table("memories"))
        assert model.index(PAGE * 3 + 6, 0).data(EntryRole.EntryId) == f"mem-{PAGE * 3 + 6:05d}"
        assert model.index(PAGE * 2, 0).data(EntryRole.EntryId) == f"mem-{PAGE * 2:05d}"
        assert (model.pages_read, model.rows_skipped) == (2, 0)  # keyset from the end
        assert len(model.loaded()) == PAGE + 7 + PAGE
        model.sort(0, Qt.SortOrder.DescendingOrder)
        assert model.index(0, 0).data(EntryRole.EntryId) == f"mem-{PAGE * 3 + 6:05d}"
        assert model.index(PAGE * 3 + 6, 0).data(EntryRole.EntryId) == "mem-00000"
        model.set_filter("number 7")
        ids = {model.index(r, 0).data(EntryRole.EntryId) for r in range(model.rowCount())}
        assert "mem-00007" in ids and "mem-00008" not in ids


def test_the_navigator_is_as_wide_as_its_widest_line(qtbot: QtBot) -> None:
    """At 100,000 memories the line "Memories  100,000" was wider than the navigator's fixed
    150 pixels: the list scrolled sideways."""
    from axmem_gui.core.workspace import WorkspaceCounts
    from axmem_gui.ui.navigator import NavigatorView

    model = NavigatorModel()
    for key, title in (("skills", "Skills"), ("memories", "Memories")):
        model.add_section(key, title)
    view = NavigatorView(model)
    qtbot.addWidget(view)
    assert view.minimumWidth() == NavigatorView.MIN_WIDTH
    counts = WorkspaceCounts(10_000, 100_000, 0, 0, 0, 0, 0)
    model.set_counts(counts)
    line = view.fontMetrics().horizontalAdvance("Memories  100,000")
    assert view.minimumWidth() >= line + 2 * NavigatorView.PADDING
    assert view.minimumWidth() <= NavigatorView.MAX_WIDTH
    assert view.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff


def test_ids_and_names_show_control_and_bidi_characters_escaped(tmp_path: Path) -> None:
    """`bidi\\u202eevil\\u202c` showed as "bidilive" in the Skills table (lint flags such
    ids; the table let them pass for another); the real id stays the entry's."""
    from axmem_gui.core.catalog import Skill
    from axmem_gui.services.bench import BenchRow
    from axmem_gui.ui.bench.models import AxResultModel

    hostile = "bidi\u202eevil\u202c"
    with Workspace.open(tmp_path / "w.axmem", create=True) as ws:
        raw(ws).skills.upsert(Skill(hostile, "bell\x07name", "d", "c"))
        model = EntryTableModel(CatalogService(raw(ws)).table("skills"))
        columns = [key for key, _title in model.columns]
        row = [model.index(0, c).data() for c in range(len(columns))]
        assert row[columns.index("id")] == "bidi\\u202eevil\\u202c"
        assert row[columns.index("name")] == "bell\\x07name"
        assert model.index(0, 0).data(EntryRole.EntryId) == hostile
    fields = BenchRow.__dataclass_fields__
    values: dict[str, object] = {name: None for name in fields}
    values.update(rank=1, id=hostile, score=1.0, raw=1.0, coverage=1.0, matched_terms=(),
                  query="q")
    bench = AxResultModel()
    bench.set_rows((BenchRow(**values),))  # type: ignore[arg-type]
    assert bench.index(0, 1).data() == "bidi\\u202eevil\\u202c"
