"""Shared test setup: headless Qt, and a private data folder so no test touches the
user's real default workspace or settings."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")

#: Shared fixtures available to every test module. `memory_keyring` is autouse: no test
#: reaches the machine's real keyring (tests/test_isolation.py proves it).
pytest_plugins = [
    "tests.helpers.memory_keyring",
    "tests.fakes.fake_openai_server",
    "tests.helpers.fuzz_counts",
    "tests.helpers.network_guard",
]

@pytest.fixture(autouse=True)
def private_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    data = tmp_path_factory.mktemp("axmem-data")
    monkeypatch.setenv("AXMEM_DATA_DIR", str(data))
    monkeypatch.setenv("AXMEM_SETTINGS_DIR", str(data / "settings"))
    yield data

