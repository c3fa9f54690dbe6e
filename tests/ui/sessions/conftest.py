"""Shared pieces for the Sessions GUI tests: the main window with the sessions feature,
a fake OpenAI-compatible server on 127.0.0.1, an in-memory keyring, and captured error
dialogs (a modal dialog would block the test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SESSIONS, SessionsFeature
from axmem_gui.ui.sessions.run_dialog import RunAgentDialog

SAMPLE_ID = "sample-ops-assistant"
JOB_TIMEOUT_MS = 30_000


@pytest.fixture
def feature(window: MainWindow, qtbot: Any) -> SessionsFeature:
    feat: SessionsFeature = window.feature(SESSIONS)
    window.show_section("sessions")
    wait_idle(qtbot, feat)
    return feat


def wait_idle(qtbot: Any, feat: SessionsFeature, timeout: int = JOB_TIMEOUT_MS) -> None:
    qtbot.waitUntil(lambda: not feat.jobs, timeout=timeout)


@pytest.fixture
def errors(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    shown: list[tuple[str, str]] = []

    def show(cls: type, parent: object, title: str, message: str) -> None:
        shown.append((title, message))

    monkeypatch.setattr(ErrorDialog, "show", classmethod(show))
    return shown


def import_files(qtbot: Any, feat: SessionsFeature, paths: list[Path]) -> list[str]:
    """The Sessions page's import (a job on the task runner), waited for: the ids it
    stored."""
    if feat.import_files(paths) is None:
        return []
    with qtbot.waitSignal(feat.import_finished, timeout=JOB_TIMEOUT_MS) as blocker:
        pass
    return list(blocker.args[0])


def new_run_dialog(
    feat: SessionsFeature, settings: ProviderSettings | None = None
) -> RunAgentDialog:
    """The Run dialog as Run > Run Agent… opens it (agent edits are undoable commands)."""
    return RunAgentDialog(
        feat.agents(), feat.sessions().jobs(), feat.runner, feat.save_agent, settings
    )
