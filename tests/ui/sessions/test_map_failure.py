"""A failed context-map update in a GUI run: a warning on the session, or an error dialog
when the user asked for that in the Run dialog."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.viewer import SessionViewer
from tests.trust.script_server import ScriptServer
from tests.ui.sessions.conftest import new_run_dialog, wait_idle


@pytest.fixture
def scripted() -> Iterator[ScriptServer]:
    srv = ScriptServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.mark.parametrize("as_error", [False, True], ids=["warn", "error"])
def test_a_failed_map_update_is_shown_as_the_user_chose(
    window: MainWindow,
    feature: SessionsFeature,
    scripted: ScriptServer,
    errors: list[tuple[str, str]],
    qtbot: Any,
    as_error: bool,
) -> None:
    scripted.state.faults = {7: "500"}  # the first forward's map Distiller call
    settings = ProviderSettings(
        "openai-compatible", "script-1", base_url=scripted.base_url, max_retries=0
    )
    dialog = new_run_dialog(feature, settings)
    qtbot.addWidget(dialog)
    dialog.set_input("userRequest", "How do I ship a release?")
    dialog.map_failure_error.setChecked(as_error)
    order = dialog.build_order()
    assert order.map_failure == ("error" if as_error else "warn")
    feature.start_run(order)
    wait_idle(qtbot, feature)
    viewer = feature.current_viewer()
    assert isinstance(viewer, SessionViewer)
    assert viewer.session.status == "complete"
    assert "Warning: forward 1: the context-map update failed" in viewer.banner.text()
    titles = [title for title, _message in errors]
    assert titles == (["Context-map update failed"] if as_error else [])


def test_the_provider_form_keeps_streaming_and_the_retry_policy(
    feature: SessionsFeature, qtbot: Any
) -> None:
    from axmem_gui.ui.sessions.provider_form import ProviderForm

    form = ProviderForm(feature.runner)
    qtbot.addWidget(form)
    recorded = ProviderSettings(
        "openai-compatible",
        "m",
        base_url="http://127.0.0.1:9/v1",
        max_retries=1,
        retry_backoff_s=0.5,
        retry_max_wait_s=5.0,
        retry_on=("rate_limited",),
        stream=True,
    )
    form.set_settings(recorded)
    assert form.stream.isChecked()
    assert form.settings() == recorded  # a rerun keeps the recorded policy
    form.stream.setChecked(False)
    assert form.settings().stream is False
