"""An in-memory keyring backend and a fixture installing it: the OS keyring's behaviour
without the OS (tests never touch the user's real keyring)."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import keyring.core
import pytest
from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        KeyringBackend.__init__(self)  # keyring leaves its constructor unannotated
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username))


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """A fresh in-memory keyring for every test (autouse: tests/conftest.py loads this module
    as a plugin). The previous backend is read from keyring's module state rather than with
    `keyring.get_keyring()`, which would load and probe the OS keyring on first use."""
    previous = keyring.core._keyring_backend
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.core._keyring_backend = previous
