"""An API key never reaches a session file, an export, the workspace or the logs."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.services import secrets, sessions
from axmem_gui.services.providers import build_client, resolve_api_key
from tests.engine.conftest import INPUTS, record
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.memory_keyring import MemoryKeyring
from tests.helpers.session_docs import reparse, session_json


@pytest.fixture
def planted_key(monkeypatch: pytest.MonkeyPatch) -> str:
    key = f"sk-axmem-planted-{uuid.uuid4().hex}"
    monkeypatch.setenv("AXMEM_TEST_KEY", key)
    return key


def _everything_written(tmp_path: Path) -> str:
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file()
    )


def test_key_is_sent_but_never_recorded(
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    planted_key: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = settings_for(server, api_key_env="AXMEM_TEST_KEY")
    doc = session_json(record(server, config, catalog, settings=settings))
    assert doc["status"] == "complete"
    # The key really went to the server (so the check below is not vacuous)...
    assert all(r.headers["Authorization"] == f"Bearer {planted_key}" for r in server.requests)
    assert doc["provider"]["api_key_source"] == {"kind": "env", "name": "AXMEM_TEST_KEY"}
    assert doc["provider"]["request_headers"]["Authorization"] == "[redacted]"
    # ...and appears nowhere we write.
    sessions.write_session_file(reparse(doc), tmp_path / "run.axsession.json")
    assert planted_key not in _everything_written(tmp_path)
    out, err = capfd.readouterr()
    assert planted_key not in out + err + caplog.text


def test_key_quoted_in_an_error_is_scrubbed(
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    planted_key: str,
    tmp_path: Path,
) -> None:
    server.state.faults = {1: "401-echo"}
    doc = session_json(record(
        server, config, catalog, settings=settings_for(server, api_key_env="AXMEM_TEST_KEY")
    ))
    assert doc["status"] == "incomplete" and doc["error"]["kind"] == "auth"
    assert "[redacted]" in doc["error"]["message"]
    sessions.write_session_file(reparse(doc), tmp_path / "partial.axsession.json")
    assert planted_key not in _everything_written(tmp_path)


def test_cli_run_export_and_workspace_hold_no_key(
    server: FakeOpenAIServer,
    workspace_path: Path,
    planted_key: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    out_file = tmp_path / "cli.axsession.json"
    args = [
        "run", "--workspace", str(workspace_path), "--agent", "triage",
        "--input", f"document={INPUTS[0]['document']}", "--input", f"query={INPUTS[0]['query']}",
        "--provider", "openai-compatible", "--model", "scripted-a",
        "--base-url", server.base_url, "--api-key-env", "AXMEM_TEST_KEY",
        "--max-retries", "0", "-o", str(out_file), "--save",
    ]  # fmt: skip
    assert main(args) == 0
    stored = sessions.read_session_file(out_file).id
    assert main(["sessions", "export", stored, "-o", str(tmp_path / "export.axsession.json"),
                 "--workspace", str(workspace_path)]) == 0  # fmt: skip
    assert server.requests and all(
        planted_key in r.headers["Authorization"] for r in server.requests
    )
    captured = capsys.readouterr()
    # The workspace file (and its WAL) included.
    assert planted_key not in _everything_written(tmp_path)
    assert planted_key not in captured.out + captured.err + caplog.text


def test_key_from_the_keyring_is_used_and_not_recorded(
    memory_keyring: MemoryKeyring,
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    tmp_path: Path,
) -> None:
    key = f"sk-keyring-{uuid.uuid4().hex}"
    secrets.set_api_key("openai-compatible", key)
    assert memory_keyring.store == {("axmem", "openai-compatible"): key}
    doc = session_json(record(server, config, catalog))
    assert doc["provider"]["api_key_source"] == {"kind": "keyring", "service": "axmem"}
    assert server.requests[0].headers["Authorization"] == f"Bearer {key}"
    sessions.write_session_file(reparse(doc), tmp_path / "k.axsession.json")
    assert key not in _everything_written(tmp_path)
    assert secrets.delete_api_key("openai-compatible")
    assert secrets.get_api_key("openai-compatible") is None


def test_key_sources(
    monkeypatch: pytest.MonkeyPatch, server: FakeOpenAIServer, memory_keyring: MemoryKeyring
) -> None:
    from axmem_gui.core.errors import InputError
    from axmem_gui.core.providers import ProviderSettings

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = build_client(settings_for(server))
    assert local.provider.api_key_source == {"kind": "placeholder"}
    assert local.secrets == ()
    with pytest.raises(InputError, match="environment variable AXMEM_NOT_SET is not set"):
        resolve_api_key(settings_for(server, api_key_env="AXMEM_NOT_SET"))
    # A hosted provider without any key is refused before any request, naming where to
    # put one.
    with pytest.raises(InputError, match=r"no API key for OpenAI.*keyring.*OPENAI_API_KEY"):
        build_client(ProviderSettings("openai", "gpt-5-mini"))
