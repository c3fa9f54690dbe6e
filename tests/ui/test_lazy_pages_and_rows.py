"""Start-up builds only what the first page shows; the other pages are built on their
first visit (issue #16: every page was built before the first paint). The entry tables
keep loaded rows untracked by the cycle collector (scrolling 100,000 memories added half
a million tracked objects, and the full collections they set off froze frames for
0.4–0.6 s). Counted objects and calls, never timings."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QTableView
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Memory
from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.contextmap.feature import CONTEXTMAPS
from axmem_gui.ui.evals import EVALS
from axmem_gui.ui.feature import FeatureError, PageSpec
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.pages import CatalogTableModel
from axmem_gui.ui.scenarios.feature import SCENARIOS
from axmem_gui.ui.sessions.controller import SESSIONS
from tests.helpers.store import raw

LAZY = ("scenarios", "sessions", "contextmaps", "evals")


def test_pages_off_the_first_one_are_built_on_their_first_visit(window: MainWindow) -> None:
    QApplication.processEvents()
    assert window.current_section() == "skills"
    for key in LAZY:
        assert key in window.pages and not window.pages.built(key), key
    assert [*window.pages][:2] == ["skills", "memories"]
    assert [window.nav_model.row_of(k) for k in window.pages] == list(range(len(window.pages)))

    # Actions of a page not built yet: what needs a selection waits, the rest works.
    actions = window.action_registry
    assert actions.get("sessions.import").isEnabled()
    assert not actions.get("sessions.open").isEnabled()
    assert not actions.get("sessions.replay").isEnabled()
    window.show_section("sessions")
    assert window.stack.currentWidget() is window.feature(SESSIONS).page
    assert window.feature(SESSIONS).page.model.rowCount() == 2  # the sample's sessions

    window.show_section("evals")
    assert window.pages.built("evals")
    assert window.stack.currentWidget() is window.pages["evals"]
    assert window.pages["evals"] is window.feature(EVALS).page
    assert window.feature(EVALS).page.sets_model.rowCount() > 0  # the sample's eval set
    assert not window.pages.built("scenarios")

    # A feature's own use of its page builds it once; the window shows that one.
    page = window.feature(SCENARIOS).page
    assert window.pages["scenarios"] is page and window.pages.built("scenarios")
    window.show_section("scenarios")
    assert window.stack.currentWidget() is page
    assert window.stack.count() == len(window.pages)

    # A change while a page is not built yet is read when it is.
    assert not window.pages.built("contextmaps")
    window.controller.changed.emit("contextmaps")
    assert window.pages["contextmaps"] is window.feature(CONTEXTMAPS).page


@pytest.mark.parametrize("both", [True, False])
def test_a_page_spec_needs_exactly_one_of_widget_and_build(both: bool) -> None:
    with pytest.raises(FeatureError, match="'p'"):
        if both:
            PageSpec("p", "P", QLabel(), build=QLabel)
        else:
            PageSpec("p", "P")


MEMORIES = 4000


def test_loaded_rows_add_no_objects_for_the_cycle_collector(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "many.axmem"
    ws = init_workspace(path)
    with raw(ws).transaction():
        for i in range(MEMORIES):
            raw(ws).memories.upsert(Memory(f"m{i}", f"memory number {i}", ("tag", f"t{i % 7}")))
    model = CatalogTableModel(ws.catalog.table("memories"))
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.show()
    gc.collect()
    before = len(gc.get_objects())
    bar = view.verticalScrollBar()
    while bar.value() < bar.maximum() or not bar.maximum():
        bar.setValue(bar.value() + bar.pageStep())
        QApplication.processEvents()  # the view paints (parses) the rows in sight
        if not bar.maximum():
            break
    gc.collect()
    grown = len(gc.get_objects()) - before
    assert model.rowCount() == MEMORIES
    assert len(model.loaded()) == MEMORIES  # every page was shown once
    # Parsed entries (a tuple, the Memory, its tags, extra and meta) would be 5 a row.
    assert grown < MEMORIES // 4, grown

    # What the rows show and hand out is still the parsed entry.
    last = model.index(MEMORIES - 1, 1)
    assert last.data() == f"memory number {MEMORIES - 1}"
    assert model.index(5, 2).data() == "tag, t5"
    assert model.row_of_id("m3999") == MEMORIES - 1
    # An edit refreshes its row in place.
    raw(ws).memories.upsert(Memory("m7", "changed", ()))
    assert model.refresh_entries(["m7"])
    assert model.index(7, 1).data() == "changed"
    ws.close()
