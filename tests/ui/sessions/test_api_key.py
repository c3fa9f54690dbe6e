"""An API key typed into the run dialog goes to the OS keyring, is sent to the server,
and is never echoed back nor written to the workspace file."""

from __future__ import annotations

import uuid
from typing import Any

import keyring
from keyring.backends.fail import Keyring as FailKeyring

from axmem_gui.services import secrets
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.provider_form import KEYRING
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.memory_keyring import MemoryKeyring
from tests.ui.sessions.conftest import new_run_dialog, wait_idle


def test_planted_key_never_reaches_the_workspace_file(
    window: MainWindow,
    feature: SessionsFeature,
    server: FakeOpenAIServer,
    memory_keyring: MemoryKeyring,
    qtbot: Any,
) -> None:
    key = f"sk-axmem-planted-{uuid.uuid4().hex}"
    dialog = new_run_dialog(feature, settings_for(server))
    qtbot.addWidget(dialog)
    form = dialog.provider
    assert form.keyring_radio.isEnabled()
    form.key_source.button(KEYRING).setChecked(True)
    form.key_edit.setText(key)
    dialog.set_input("userRequest", "Who owns the checkout service?")
    dialog.accept()
    assert dialog.order is not None
    # Stored in the keyring under the provider, and gone from the form.
    assert memory_keyring.store == {("axmem", "openai-compatible"): key}
    assert form.key_edit.text() == ""
    assert "stored" in form.key_edit.placeholderText()
    assert key not in repr(dialog.order)
    feature.start_run(dialog.order)
    wait_idle(qtbot, feature)
    # The key really went over the wire (so the check below is not vacuous)...
    assert server.requests and all(
        r.headers["Authorization"] == f"Bearer {key}" for r in server.requests
    )
    viewer = feature.current_viewer()
    assert viewer is not None and viewer.session.status == "complete"
    assert viewer.session.provider.api_key_source == {"kind": "keyring", "service": "axmem"}
    # ...and is nowhere in the workspace: the file, its WAL and shared memory.
    path = window.controller.path
    files = [p for p in path.parent.iterdir() if p.name.startswith(path.name)]
    assert path in files
    for file in files:
        assert key.encode() not in file.read_bytes(), file
    # A new dialog does not show it either; Forget removes it from the keyring.
    again = new_run_dialog(feature, feature.default_settings())
    qtbot.addWidget(again)
    assert again.provider.key_edit.text() == ""
    assert again.provider.forget_key.isEnabled()
    again.provider.forget_key.click()
    assert secrets.get_api_key("openai-compatible") is None
    assert "No key stored" in again.provider.key_status.text()


def test_without_a_keyring_the_env_var_is_offered(
    feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any
) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())  # a machine without any keyring backend
    try:
        _check_env_only(feature, server, qtbot)
    finally:
        keyring.set_keyring(previous)


def _check_env_only(feature: SessionsFeature, server: FakeOpenAIServer, qtbot: Any) -> None:
    assert not secrets.keyring_available()
    dialog = new_run_dialog(feature, settings_for(server))
    qtbot.addWidget(dialog)
    form = dialog.provider
    assert not form.keyring_radio.isEnabled() and form.env_radio.isChecked()
    assert not form.key_edit.isEnabled()
    dialog.set_input("userRequest", "x")
    form.env_edit.clear()  # the provider's usual variable
    assert form.settings().api_key_env is None
    form.env_edit.setText("MY TEAM KEY")
    dialog.accept()
    assert dialog.order is None
    assert "'MY TEAM KEY' is not an environment variable name" in dialog.error.text()
    form.env_edit.setText("AXMEM_TEAM_KEY")
    dialog.accept()
    assert dialog.order is not None and dialog.order.settings.api_key_env == "AXMEM_TEAM_KEY"
