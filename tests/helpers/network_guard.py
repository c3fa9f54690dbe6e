"""Count (and, once blocked, refuse) every outgoing socket connection of this process: a
replay that claims to be offline is checked at the socket, not trusted."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest


class NetworkGuard:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.connections = 0
        self.blocking = False
        original = socket.socket.connect
        original_ex = socket.socket.connect_ex
        guard = self

        def connect(sock: socket.socket, address: Any) -> Any:
            guard.connections += 1
            if guard.blocking:
                raise ConnectionRefusedError(f"network blocked by the test (connect to {address})")
            return original(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> Any:
            guard.connections += 1
            if guard.blocking:
                raise ConnectionRefusedError(f"network blocked by the test (connect to {address})")
            return original_ex(sock, address)

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)

    def block(self) -> None:
        self.blocking = True
        self.connections = 0


@pytest.fixture
def network_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[NetworkGuard]:
    yield NetworkGuard(monkeypatch)
