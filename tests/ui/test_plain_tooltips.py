"""Issue #26: a user string in a tooltip or label is plain text, everywhere.

A session name like `<img src="/dev/zero">` plus enough text to be elided aborted the app
on hover: the elided label put its whole text in its tooltip, which Qt reads as rich text
(`src=file:///…` made Qt open that file). The walk below opens a workspace whose every
user string is such HTML, visits every page and dock with the hostile things selected,
and checks every tooltip and label of every widget, not only the known ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QAbstractItemView, QApplication, QComboBox, QToolTip, QWidget

from axmem_gui.ui.bench.panel import BenchPanel
from axmem_gui.ui.elided import ElidedLabel
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SESSIONS
from tests.helpers.hostile import HOSTILE, MARK, TAG, columns, hostile_workspace, live_html, rich
from tests.ui.conftest import WindowFactory

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")


def _hover(qtbot: Any, widget: QWidget) -> str:
    """What the tooltip shows when the mouse rests on `widget`."""
    pos = QPoint(widget.width() // 2, widget.height() // 2)
    QApplication.sendEvent(
        widget, QHelpEvent(QEvent.Type.ToolTip, pos, widget.mapToGlobal(pos))
    )
    qtbot.waitUntil(QToolTip.isVisible)
    shown = QToolTip.text()
    QToolTip.hideText()
    return shown


def test_hovering_an_elided_hostile_name_shows_it_as_text(qtbot: Any) -> None:
    label = ElidedLabel(HOSTILE)
    qtbot.addWidget(label)
    label.resize(120, 20)
    label.show()
    qtbot.waitExposed(label)
    assert label.is_elided()
    shown = _hover(qtbot, label)
    assert not rich(shown), shown
    assert MARK in shown and "&lt;img" in shown


def test_a_running_job_named_by_a_stranger_shows_its_name_as_text(
    qtbot: Any, make_window: WindowFactory
) -> None:
    """The job strip's title (a session name) in the real window, hovered."""
    window = make_window()
    window.show_section("sessions")
    page = window.feature(SESSIONS).page
    strip = page.add_strip(HOSTILE, lambda: None)
    qtbot.waitUntil(lambda: strip.title.isVisible() and strip.title.is_elided())
    shown = _hover(qtbot, strip.title)
    assert not rich(shown) and "&lt;img" in shown


def _select_hostile_rows(root: QWidget) -> int:
    """In every visible item view and combo box under `root`, select the first row that
    shows the hostile text (opening the detail it drives); the number of views changed."""
    changed = 0
    for view in root.findChildren(QAbstractItemView):
        model = view.model()
        if model is None or not view.isVisible() or view.selectionModel() is None:
            continue
        for row in range(min(model.rowCount(QModelIndex()), 500)):
            index = model.index(row, 0)
            texts = [str(model.index(row, c).data() or "") for c in range(columns(model))]
            if not any(MARK in t or TAG in t for t in texts):
                continue
            if view.currentIndex().row() != row:
                view.selectionModel().setCurrentIndex(
                    index,
                    QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
                changed += 1
            break
    for combo in root.findChildren(QComboBox):
        if not combo.isVisible():
            continue
        found = next((i for i in range(combo.count()) if MARK in combo.itemText(i)), -1)
        if found >= 0 and combo.currentIndex() != found:
            combo.setCurrentIndex(found)
            changed += 1
    return changed


def _visit_everything(qtbot: Any, window: MainWindow) -> list[str]:
    found: list[str] = []
    for dock in window.docks.values():
        dock.show()
    for key in list(window.pages):
        window.show_section(key)
        page = window.pages[key]
        for dock in window.docks.values():
            dock.show()
        for _ in range(4):  # a selection may reveal further views (cases, items, calls)
            if not _select_hostile_rows(window):
                break
            QApplication.processEvents()
        if key == "sessions":
            window.feature(SESSIONS).open_session("hostile-session")
            QApplication.processEvents()
            _select_hostile_rows(page)
        window.grab()  # every label laid out and painted (elided labels set their tips)
        found += [f"{key}: {problem}" for problem in live_html(QApplication.allWidgets())]
    return sorted(set(found))


def test_no_tooltip_or_label_anywhere_reads_a_users_string_as_html(
    qtbot: Any, make_window: WindowFactory, tmp_path: Path
) -> None:
    window = make_window(hostile_workspace(tmp_path / "hostile.axmem"))
    window.resize(1000, 700)  # narrow enough that long names are elided
    bench = window.docks["benchDock"].widget()
    assert isinstance(bench, BenchPanel)
    bench.set_searches([HOSTILE])
    bench.run()
    assert _visit_everything(qtbot, window) == []
    # the walk did reach the hostile things (so an empty list means something)
    labels = [w for w in QApplication.allWidgets() if MARK in (w.toolTip() or "")]
    assert labels, "no widget carried a hostile tooltip: the walk saw nothing"
