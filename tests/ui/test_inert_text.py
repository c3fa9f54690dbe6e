"""Issue: names reached Qt rich text. A skill named `<img src="/dev/zero">` aborted the
app when its table tooltip showed, and a session with that name aborted it when the viewer
opened. Every user string in a label, tooltip or message box is now plain text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtGui
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QTableView, QToolTip

from axmem_gui.core.catalog import Skill
from axmem_gui.services.catalog import CatalogService
from axmem_gui.services.sessions import SessionService
from axmem_gui.store import Workspace
from axmem_gui.ui.entry_table import EntryTableModel
from axmem_gui.ui.inert_text import inert, plain_label, plain_message_box
from axmem_gui.ui.sessions.viewer import SessionViewer
from tests.helpers.session_docs import reparse, sample_session_json
from tests.helpers.store import raw

HOSTILE = '<img src="/dev/zero"><b>bold</b>'


def _show_tooltip(qtbot: Any, view: QTableView, row: int, column: int) -> str:
    rect = view.visualRect(view.model().index(row, column))
    pos = rect.center()
    event = QHelpEvent(QEvent.Type.ToolTip, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)
    qtbot.waitUntil(QToolTip.isVisible)
    return QToolTip.text()


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_entry_table_tooltip_shows_a_hostile_name_as_text(qtbot: Any, tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "w.axmem", create=True) as ws:
        raw(ws).skills.upsert(Skill("evil", HOSTILE, "d", "c"))
        view = QTableView()
        qtbot.addWidget(view)
        model = EntryTableModel(CatalogService(raw(ws)).table("skills"))
        view.setModel(model)
        view.resize(600, 300)
        view.show()
        qtbot.waitExposed(view)
        name_column = next(
            c for c in range(model.columnCount()) if model.index(0, c).data() == HOSTILE
        )
        shown = _show_tooltip(qtbot, view, 0, name_column)
        QToolTip.hideText()
    assert "&lt;img" in shown and "<img" not in shown
    assert model.index(0, name_column).data(Qt.ItemDataRole.ToolTipRole) == inert(HOSTILE)


def test_session_viewer_shows_a_hostile_session_name_as_text(qtbot: Any) -> None:
    doc = sample_session_json()
    doc["name"] = HOSTILE
    viewer = SessionViewer(reparse(doc))
    qtbot.addWidget(viewer)
    viewer.resize(900, 600)
    viewer.show()
    qtbot.waitExposed(viewer)
    viewer.grab()  # paints every label
    assert viewer.title.textFormat() == Qt.TextFormat.PlainText
    assert viewer.title.text() == HOSTILE


def test_session_list_tooltip_is_inert(qtbot: Any, tmp_path: Path) -> None:
    from axmem_gui.ui.sessions.list_model import NAME, SessionListModel

    doc = sample_session_json()
    doc["name"] = HOSTILE
    with Workspace.open(tmp_path / "w.axmem", create=True) as ws:
        raw(ws).sessions.save(doc)
        model = SessionListModel()
        model.set_sessions(SessionService(raw(ws)).rows())
        tip = model.index(0, NAME).data(Qt.ItemDataRole.ToolTipRole)
    assert isinstance(tip, str) and "&lt;img" in tip and "<img" not in tip


def test_inert_keeps_plain_text_and_escapes_what_looks_rich() -> None:
    assert inert("plain name") == "plain name"
    assert inert("a < b") == "a < b"  # Qt would show this as text anyway
    escaped = inert(HOSTILE)
    assert QtGui.Qt.mightBeRichText(escaped) and "&lt;img src=&quot;/dev/zero&quot;&gt;" in escaped


def test_labels_and_message_boxes_are_plain_text(qtbot: Any) -> None:
    label = plain_label(HOSTILE)
    qtbot.addWidget(label)
    label.setText(HOSTILE)
    label.show()
    label.grab()
    assert label.textFormat() == Qt.TextFormat.PlainText and label.text() == HOSTILE
    box = plain_message_box(None, QMessageBox.Icon.Warning, "t", HOSTILE)
    qtbot.addWidget(box)
    assert box.textFormat() == Qt.TextFormat.PlainText


def test_every_label_in_the_gui_is_made_plain() -> None:
    # A bare QLabel interprets whatever looks like rich text (Qt::AutoText), so a name or
    # message set on it later can load files. Labels are made through plain_label(); the
    # only rich-text labels are fixed texts of our own (About, the welcome panel).
    import re

    ui = Path(__file__).resolve().parents[2] / "axmem_gui" / "ui"
    allowed = {"inert_text.py", "about.py", "help.py"}
    bare = [
        f"{path.relative_to(ui)}:{n}"
        for path in sorted(ui.rglob("*.py"))
        if path.name not in allowed
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"(?<![\w.])QLabel\(", line)
    ]
    assert bare == []
