"""No test reaches the machine's real keyring: the in-memory keyring is installed for every
test (autouse), including the run-dialog tests that never ask for it."""

from __future__ import annotations

from typing import Any

import keyring

from axmem_gui.services import secrets
from axmem_gui.ui.sessions.controller import SessionsFeature
from axmem_gui.ui.sessions.provider_form import KEYRING
from tests.helpers.memory_keyring import MemoryKeyring
from tests.ui.sessions.conftest import new_run_dialog


def test_every_test_gets_the_memory_keyring_without_asking() -> None:
    backend = keyring.get_keyring()
    assert isinstance(backend, MemoryKeyring)
    assert backend.store == {}  # a fresh one: nothing leaks in from another test


def test_run_dialog_stores_keys_in_the_memory_keyring(
    feature: SessionsFeature, qtbot: Any
) -> None:
    # This test requests no keyring fixture: the dialog still sees the in-memory backend.
    dialog = new_run_dialog(feature, feature.default_settings())
    qtbot.addWidget(dialog)
    form = dialog.provider
    assert form.keyring_radio.isEnabled()  # secrets.keyring_available() saw a real backend
    form.key_source.button(KEYRING).setChecked(True)
    form.key_edit.setText("sk-isolation-check")
    dialog.set_input("userRequest", "anything")
    dialog.accept()
    backend = keyring.get_keyring()
    assert isinstance(backend, MemoryKeyring)
    assert [(service, key) for (service, _provider), key in backend.store.items()] == [
        (secrets.KEYRING_SERVICE, "sk-isolation-check")
    ]
