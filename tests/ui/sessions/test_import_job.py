"""Importing session files runs on the task runner: reading, parsing, checking and storing
a 30 MB file froze the window for seconds on the GUI thread. The page shows the job, stays
responsive, and a cancel (or another workspace opened) before the commit leaves nothing
written. A file that does not hold what it claims is stored with the CLI's warning."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.services import session_store, sessions
from axmem_gui.services.workspace import init_workspace, open_workspace
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.page import JobStrip
from tests.helpers.session_docs import reparse, stored_json
from tests.helpers.store import raw
from tests.ui.conftest import calls_on_gui_thread
from tests.ui.sessions.conftest import JOB_TIMEOUT_MS, SAMPLE_ID, import_files


def _session_file(window: MainWindow, tmp_path: Path, session_id: str) -> Path:
    doc = stored_json(window.controller.workspace, SAMPLE_ID)
    path = tmp_path / f"{session_id}.axsession.json"
    sessions.write_session_file(reparse({**doc, "id": session_id}), path)
    return path


def _strips(feature: SessionsFeature) -> list[JobStrip]:
    """The job strips the page shows (a removed one is deleted later)."""
    layout = feature.page.strips
    items = [layout.itemAt(i) for i in range(layout.count())]
    return [w for item in items if item is not None and isinstance(w := item.widget(), JobStrip)]


class Gate:
    """Holds a worker thread inside a patched function until the test opens it (the GUI
    thread is never held: on the GUI thread the call just runs)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()

    def wrap(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def gated(*args: Any, **kwargs: Any) -> Any:
            if threading.current_thread() is not threading.main_thread():
                self.entered.set()
                assert self.opened.wait(JOB_TIMEOUT_MS / 1000), "the test never opened it"
            return original(*args, **kwargs)

        return gated


@pytest.fixture
def gate() -> Iterator[Gate]:
    made = Gate()
    yield made
    made.opened.set()  # never leave a worker waiting


def test_import_reads_parses_checks_and_stores_on_a_worker_thread(
    window: MainWindow,
    feature: SessionsFeature,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
) -> None:
    reads = calls_on_gui_thread(monkeypatch, session_store, "read_session_file")
    parses = calls_on_gui_thread(monkeypatch, session_store, "session_from_json_text")
    saves = calls_on_gui_thread(monkeypatch, sessions.SessionService, "store")
    checks = calls_on_gui_thread(monkeypatch, sessions, "verify")
    paths = [_session_file(window, tmp_path, f"worker-{i}") for i in range(3)]
    assert import_files(qtbot, feature, paths) == ["worker-0", "worker-1", "worker-2"]
    # each file read, parsed, checked and stored once, none of it on the GUI thread
    assert reads == parses == saves == checks == [False, False, False]
    assert window.statusBar().currentMessage() == "Imported 3 sessions."
    assert feature.page.selected_ids() == ["worker-0", "worker-1", "worker-2"]
    assert not _strips(feature)


def test_the_window_stays_live_and_shows_the_job_while_it_imports(
    window: MainWindow,
    feature: SessionsFeature,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
    gate: Gate,
) -> None:
    read = gate.wrap(session_store.read_session_file)
    monkeypatch.setattr(session_store, "read_session_file", read)
    path = _session_file(window, tmp_path, "slow")
    assert feature.import_files([path]) is not None
    qtbot.waitUntil(gate.entered.is_set, timeout=JOB_TIMEOUT_MS)
    # The worker is held inside the import: the GUI thread still runs its event loop.
    [strip] = _strips(feature)
    qtbot.waitUntil(lambda: strip.status.full_text().startswith("reading slow"))
    assert strip.title.full_text() == "Importing slow.axsession.json"
    assert strip.cancel.isEnabled()
    window.show_section("skills")  # the window answers while the import runs
    assert window.current_section() == "skills"
    window.show_section("sessions")
    with qtbot.waitSignal(feature.import_finished, timeout=JOB_TIMEOUT_MS) as done:
        gate.opened.set()
    assert done.args == [["slow"]]
    assert not _strips(feature)
    assert "slow" in feature.page.model.ids()
    assert window.statusBar().currentMessage() == "Imported 1 session."


def test_cancel_before_the_commit_leaves_nothing_written(
    window: MainWindow,
    feature: SessionsFeature,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
    gate: Gate,
) -> None:
    """Two files: the first is stored (in the transaction), the second's write is held;
    Cancel then rolls back both."""
    real_save = sessions.SessionService.store
    saved: list[str] = []

    def save_then_hold(service: Any, doc: Any, **kw: Any) -> Any:
        saved.append(doc.id)
        if len(saved) == 2:
            return gate.wrap(real_save)(service, doc, **kw)
        return real_save(service, doc, **kw)

    monkeypatch.setattr(sessions.SessionService, "store", save_then_hold)
    paths = [_session_file(window, tmp_path, name) for name in ("first", "second")]
    before = feature.page.model.ids()
    assert feature.import_files(paths) is not None
    qtbot.waitUntil(gate.entered.is_set, timeout=JOB_TIMEOUT_MS)
    [strip] = _strips(feature)
    assert strip.title.full_text() == "Importing 2 session files"
    strip.cancel.click()
    assert strip.status.full_text() == "cancelling…"
    with qtbot.waitSignal(feature.import_finished, timeout=JOB_TIMEOUT_MS) as done:
        gate.opened.set()
    assert done.args == [[]]
    assert saved == ["first", "second"]  # both were written, then rolled back
    assert window.statusBar().currentMessage() == "Import cancelled: nothing imported."
    with open_workspace(window.controller.path, read_only=True) as ws:
        assert raw(ws).sessions.get("first") is None and raw(ws).sessions.get("second") is None
    feature.reload()
    assert feature.page.model.ids() == before
    assert not _strips(feature)


def test_opening_another_workspace_mid_import_leaves_the_first_untouched(
    window: MainWindow,
    feature: SessionsFeature,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
    gate: Gate,
) -> None:
    monkeypatch.setattr(
        sessions.SessionService, "store", gate.wrap(sessions.SessionService.store)
    )
    first = window.controller.path
    path = _session_file(window, tmp_path, "moved-away")
    assert feature.import_files([path]) is not None
    qtbot.waitUntil(gate.entered.is_set, timeout=JOB_TIMEOUT_MS)
    other = tmp_path / "other.axmem"
    init_workspace(other).close()
    assert window.open_path(other)
    with qtbot.waitSignal(feature.import_finished, timeout=JOB_TIMEOUT_MS) as done:
        gate.opened.set()
    assert done.args == [[]]
    for workspace in (first, other):
        with open_workspace(workspace, read_only=True) as ws:
            assert raw(ws).sessions.get("moved-away") is None
    assert feature.page.model.ids() == []


def test_closing_the_window_mid_import_leaves_nothing_written(
    make_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
    gate: Gate,
) -> None:
    from axmem_gui.ui.sessions.controller import SESSIONS

    window = make_window()
    feature = window.feature(SESSIONS)
    monkeypatch.setattr(
        sessions.SessionService, "store", gate.wrap(sessions.SessionService.store)
    )
    path = _session_file(window, tmp_path, "closed-on")
    workspace, runner = window.controller.path, window.task_runner
    assert feature.import_files([path]) is not None
    qtbot.waitUntil(gate.entered.is_set, timeout=JOB_TIMEOUT_MS)
    window.close()  # closes the workspace: the features stop, the runner forgets its jobs
    assert window.controller.is_closed
    gate.opened.set()
    assert runner.wait(JOB_TIMEOUT_MS)
    with open_workspace(workspace, read_only=True) as ws:
        assert raw(ws).sessions.get("closed-on") is None
        assert raw(ws).integrity_check() == "ok"


def test_a_tampered_file_is_imported_with_the_clis_warning(
    window: MainWindow,
    feature: SessionsFeature,
    tmp_path: Path,
    errors: list[tuple[str, str]],
    qtbot: Any,
) -> None:
    """The CLI warned that the file does not hold what it claims; the GUI said nothing."""
    doc = json.loads(json.dumps(stored_json(window.controller.workspace, SAMPLE_ID)))
    doc["id"] = "tampered"
    doc["exchanges"][0]["request"]["chat_prompt"][0]["content"] += " (edited)"
    tampered = tmp_path / "tampered.axsession.json"
    tampered.write_text(json.dumps(doc), encoding="utf-8")
    honest = _session_file(window, tmp_path, "honest")
    differences = len(sessions.verify(sessions.read_session_file(tampered)).differences)
    assert differences >= 1
    noun = "difference" if differences == 1 else "differences"
    expected = f"the file does not hold what it claims ({differences} {noun})"
    assert import_files(qtbot, feature, [honest, tampered]) == ["honest", "tampered"]
    assert window.statusBar().currentMessage() == "Imported 2 sessions."
    notice = feature.page.notice
    assert notice.isVisible() and notice.property("level") == "warn"
    assert notice.text() == (
        f"Session tampered from {tampered}: {expected}; "
        "Replay Session (or `axmem verify FILE`) shows them."
    )
    assert errors == []
    # the same file again: already there, nothing stored, no warning (as the CLI)
    feature.page.clear_notice()
    assert import_files(qtbot, feature, [tampered]) == []
    assert not feature.page.notice.isVisible()
