"""Import and export of .axsession.json files: dialogs, drag-and-drop, clear errors."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from axmem_gui.engine.sample_session import SAMPLE_FILE
from axmem_gui.services import sessions
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.dialogs import ExportSessionDialog, ImportSessionDialog
from tests.helpers.session_docs import reparse, stored_json
from tests.helpers.store import raw
from tests.ui.sessions.conftest import JOB_TIMEOUT_MS, SAMPLE_ID, import_files


def _export(feature: SessionsFeature, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "out.axsession.json"
    monkeypatch.setattr(ExportSessionDialog, "ask", classmethod(lambda cls, *a: target))
    feature.page.show_list()
    assert feature.page.select_id(SAMPLE_ID)
    feature.export_action.trigger()
    return target


def test_export_then_import_under_another_id(
    window: MainWindow,
    feature: SessionsFeature,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
) -> None:
    target = _export(feature, tmp_path, monkeypatch)
    # The sample was stored from the shipped file: it comes back out byte for byte.
    shipped = resources.files("axmem_gui") / "sample" / SAMPLE_FILE
    assert target.read_bytes() == shipped.read_bytes()
    exported = json.loads(target.read_text("utf-8"))
    assert exported == stored_json(window.controller.workspace, SAMPLE_ID)
    exported["id"] = "imported-copy"
    copy_path = tmp_path / "copy.axsession.json"
    sessions.write_session_file(reparse(exported), copy_path)
    monkeypatch.setattr(ImportSessionDialog, "ask", classmethod(lambda cls, *a: [copy_path]))
    before = feature.page.model.rowCount()
    with qtbot.waitSignal(feature.import_finished, timeout=JOB_TIMEOUT_MS):
        feature.import_action.trigger()
    assert raw(window.controller.workspace).sessions.get("imported-copy") is not None
    assert feature.page.model.rowCount() == before + 1
    assert feature.page.selected_ids() == ["imported-copy"]


def test_the_same_file_twice_says_it_is_already_there(
    window: MainWindow,
    feature: SessionsFeature,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
) -> None:
    """The second import of a file stores nothing and said "Imported 1 session(s)"."""
    target = _export(feature, tmp_path, monkeypatch)
    doc = json.loads(target.read_text("utf-8"))
    doc["id"] = "twice"
    path = tmp_path / "twice.axsession.json"
    sessions.write_session_file(reparse(doc), path)
    assert import_files(qtbot, feature, [path]) == ["twice"]
    assert window.statusBar().currentMessage() == "Imported 1 session."
    before = feature.page.model.rowCount()
    assert import_files(qtbot, feature, [path]) == []
    message = window.statusBar().currentMessage()
    assert message == "That session is already in the workspace: nothing imported."
    assert feature.page.model.rowCount() == before
    assert feature.page.selected_ids() == ["twice"]
    other = tmp_path / "other.axsession.json"
    sessions.write_session_file(reparse({**doc, "id": "twice-other"}), other)
    assert import_files(qtbot, feature, [path, other]) == ["twice-other"]
    message = window.statusBar().currentMessage()
    assert message == "Imported 1 session; 1 was already in the workspace."
    changed = tmp_path / "changed.axsession.json"
    sessions.write_session_file(reparse({**doc, "name": "another run"}), changed)  # id "twice"
    assert import_files(qtbot, feature, [changed]) == ["twice-2"]
    assert window.statusBar().currentMessage() == (
        "Imported 1 session; id twice is taken by another session: kept as twice-2."
    )
    bad = tmp_path / "bad.axsession.json"
    bad.write_text("{", encoding="utf-8")
    monkeypatch.setattr(ErrorDialog, "show", classmethod(lambda cls, *a: None))
    assert import_files(qtbot, feature, [bad]) == []
    assert window.statusBar().currentMessage() == "Nothing imported."


def test_bad_file_names_file_and_field_and_writes_nothing(
    window: MainWindow,
    feature: SessionsFeature,
    tmp_path: Path,
    errors: list[tuple[str, str]],
    qtbot: Any,
) -> None:
    bad = tmp_path / "bad.axsession.json"
    doc = json.loads(json.dumps(stored_json(window.controller.workspace, SAMPLE_ID)))
    doc["id"] = "bad"
    doc["exchanges"][3]["digest"] = 42
    bad.write_text(json.dumps(doc), encoding="utf-8")
    assert import_files(qtbot, feature, [bad]) == []
    [(title, message)] = errors
    assert title == "Cannot import"
    assert str(bad) in message and "exchanges[3]" in message and "digest" in message
    assert "Traceback" not in message
    assert raw(window.controller.workspace).sessions.get("bad") is None


def _drop_event(paths: list[Path], enter: bool = False) -> Any:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    action, button = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
    modifiers, point = Qt.KeyboardModifier.NoModifier, QPointF(10, 10)
    if enter:
        return QDragEnterEvent(point.toPoint(), action, mime, button, modifiers), mime
    return QDropEvent(point, action, mime, button, modifiers), mime


def test_drag_and_drop_imports_session_files(
    window: MainWindow, feature: SessionsFeature, tmp_path: Path, qtbot: Any
) -> None:
    doc = stored_json(window.controller.workspace, SAMPLE_ID)
    doc["id"] = "dropped"
    path = tmp_path / "dropped.axsession.json"
    sessions.write_session_file(reparse(doc), path)
    other = tmp_path / "notes.txt"
    other.write_text("not a session", encoding="utf-8")
    enter, _m1 = _drop_event([other], enter=True)
    feature.page.dragEnterEvent(enter)
    assert not enter.isAccepted()  # only session files are accepted
    enter, _m2 = _drop_event([path], enter=True)
    feature.page.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop, _m3 = _drop_event([path])
    with qtbot.waitSignal(feature.import_finished, timeout=JOB_TIMEOUT_MS):
        feature.page.dropEvent(drop)
    assert raw(window.controller.workspace).sessions.get("dropped") is not None
    assert "dropped" in feature.page.model.ids()
