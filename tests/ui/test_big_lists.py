"""The entry lists at a size where paging shows (issue #30): Ctrl+End and a drag of the
scroll bar to its end reach the list's true end (five Ctrl+End presses reached row 1,791
of 10,000), by keyset from the end rather than by reading every page before it; the
memories filter reads its candidates from the trigram index (a keystroke read all
100,000 memories twice, 210-480 ms), and a filter too short for it is read off the GUI
thread. Counted pages and rows, query plans and threads; never timings."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt

from axmem_gui.core.catalog import Memory
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store.connection import GuardedConnection
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.entry_table import PAGE, EntryRole
from axmem_gui.ui.main_window import MainWindow
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory

MEMORIES = PAGE * 12 + 5


@pytest.fixture
def many_path(tmp_path: Path) -> Path:
    path = tmp_path / "many.axmem"
    ws = init_workspace(path)
    with raw(ws).transaction():
        for i in range(MEMORIES):
            topic = "kubernetes" if i % 50 == 0 else "release"
            raw(ws).memories.upsert(Memory(f"mem-{i:05d}", f"note {i} on {topic}", ("t",)))
    ws.close()
    return path


@pytest.fixture
def many_window(make_window: WindowFactory, many_path: Path) -> MainWindow:
    win = make_window(many_path)
    win.show_section("memories")
    return win


def test_ctrl_end_reaches_the_true_end_by_keyset(qtbot, many_window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    page = many_window.feature(CATALOG).pages["memories"]
    table = page.table
    table.setFocus()
    table.setCurrentIndex(page.model.index(0, 0))
    qtbot.keyClick(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    current = table.currentIndex()
    assert current.data(EntryRole.EntryId) == f"mem-{MEMORIES - 1:05d}"
    assert current.row() == MEMORIES - 1 == page.model.rowCount() - 1
    # One page read (the first came with the list), from the end by keyset: no row
    # before it was read or stepped over.
    assert page.model.pages_read == 1
    assert page.model.rows_skipped == 0
    assert len(page.model.loaded()) == PAGE + (MEMORIES % PAGE)
    # The row above the last page is read the same way, from the page below it.
    qtbot.keyClick(table, Qt.Key.Key_PageUp)
    qtbot.keyClick(table, Qt.Key.Key_PageUp)
    assert table.currentIndex().data(EntryRole.EntryId) == (
        f"mem-{table.currentIndex().row():05d}"
    )
    assert page.model.rows_skipped == 0
    # Sorted by id, descending: the end of the list is the smallest id.
    table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    table.setCurrentIndex(page.model.index(0, 0))
    qtbot.keyClick(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert table.currentIndex().data(EntryRole.EntryId) == "mem-00000"
    assert page.model.rows_skipped == 0


def test_dragging_the_scroll_bar_to_the_bottom_shows_the_last_rows(  # type: ignore[no-untyped-def]
    qtbot, many_window: MainWindow
) -> None:
    page = many_window.feature(CATALOG).pages["memories"]
    table = page.table
    bar = table.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())  # where a drag to the bottom ends
    qtbot.waitUntil(lambda: table.viewport().isVisible())
    bottom = table.indexAt(QPoint(4, table.viewport().height() - 4))
    last = table.indexAt(QPoint(4, table.viewport().height() - 4 - table.rowHeight(0)))
    shown = {bottom.data(EntryRole.EntryId), last.data(EntryRole.EntryId)}
    assert f"mem-{MEMORIES - 1:05d}" in shown
    assert page.model.rows_skipped == 0
    # Halfway down: read from the nearer end or loaded page, the rows are the list's.
    bar.setValue(bar.maximum() // 2)
    middle = table.indexAt(QPoint(4, 4))
    assert middle.data(EntryRole.EntryId) == f"mem-{middle.row():05d}"


def test_the_memories_filter_reads_candidates_from_the_index(  # type: ignore[no-untyped-def]
    qtbot, many_window: MainWindow, many_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = many_window.feature(CATALOG).pages["memories"]
    statements: list[tuple[str, tuple[Any, ...], bool]] = []
    original = GuardedConnection.execute

    def recording(self: GuardedConnection, sql: str, parameters: Any = (), /) -> Any:
        if "FROM memories" in sql:
            on_gui = threading.current_thread() is threading.main_thread()
            statements.append((sql, tuple(parameters), on_gui))
        return original(self, sql, parameters)

    monkeypatch.setattr(GuardedConnection, "execute", recording)
    page.filter_edit.setFocus()
    for ch in "kubernetes":
        qtbot.keyClick(page.filter_edit, ch)
    found = len(range(0, MEMORIES, 50))
    qtbot.waitUntil(lambda: page.model.total() == found, timeout=10000)
    monkeypatch.setattr(GuardedConnection, "execute", original)
    assert page.model.index(0, 0).data(EntryRole.EntryId) == "mem-00000"
    assert page.model.index(found - 1, 0).data(EntryRole.EntryId) == f"mem-{(found - 1) * 50:05d}"

    typed = [s for s in statements if "LIKE" in s[0]]
    assert typed
    # No keystroke's query ran on the GUI thread (what it shows comes from a job).
    assert not [s for s in typed if s[2]]
    conn = sqlite3.connect(many_path)
    try:
        for sql, args, _on_gui in typed:
            like = next(a for a in args if isinstance(a, str) and a.startswith("%"))
            plan = " / ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", args))
            if len(like.strip("%")) >= 3:
                # From three characters on: the index's candidates, no scan of the table.
                assert "VIRTUAL TABLE INDEX" in plan, (sql, plan)
                assert "SCAN memories " not in plan + " ", (sql, plan)
    finally:
        conn.close()
