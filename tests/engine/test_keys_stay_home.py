"""Keys never travel or land (issue 26): no redirect carries the key to another origin, a
key in the base URL is written nowhere, and a server echoing the key in a derived form
gets none of it into the session, its export, the workspace or the CLI output. On main a
301/302 re-sent `Authorization` to the other host, `…?api_key=KEY` and `user:KEY@host`
landed raw in `provider.base_url`, and only the exact key was scrubbed."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.core.session.format import session_from_json_text, session_to_json_text
from axmem_gui.core.session.model import Session
from axmem_gui.services import sessions
from axmem_gui.services.providers import build_client, check_connection
from axmem_gui.services.workspace import open_workspace
from tests.engine.conftest import INPUTS, record
from tests.fakes.fake_openai_server import (
    FakeOpenAIServer,
    RedirectServer,
    derived_forms,
    settings_for,
)


@pytest.fixture
def planted_key(monkeypatch: pytest.MonkeyPatch) -> str:
    key = f"sk-axmem-planted-{uuid.uuid4().hex}"
    monkeypatch.setenv("AXMEM_TEST_KEY", key)
    return key


@pytest.fixture
def elsewhere() -> Iterator[FakeOpenAIServer]:
    """Another origin (another port): what a hostile redirect points at."""
    srv = FakeOpenAIServer().start()
    try:
        yield srv
    finally:
        srv.stop()


def _written(root: Path) -> str:
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file()
    )


def _leaks(key: str, text: str) -> list[str]:
    low = text.lower()
    return [name for name, form in derived_forms(key).items() if form.lower() in low] + (
        ["the key"] if key.lower() in low else []
    )


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_refused_and_the_key_stays(
    code: int,
    elsewhere: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    planted_key: str,
) -> None:
    redirector = RedirectServer(code, elsewhere.base_url)
    try:
        settings = ProviderSettings(
            "openai-compatible",
            "scripted-a",
            base_url=redirector.base_url,
            api_key_env="AXMEM_TEST_KEY",
            max_retries=2,  # a refused redirect is not retried
            timeout_s=10,
        )
        session = sessions.run_agent(config, catalog, list(INPUTS[:1]), settings)
        assert len(redirector.requests) == 1
        assert redirector.requests[0].headers["Authorization"] == f"Bearer {planted_key}"
    finally:
        redirector.stop()
    # Nothing reached the other origin, with the key or without.
    assert elsewhere.requests == []
    error = session.error
    assert not session.complete and error is not None and error.kind == "redirect"
    assert f"redirected the request (HTTP {code}) to another origin" in error.message
    assert elsewhere.base_url in error.message
    assert "the API key went nowhere else" in error.message


@pytest.mark.parametrize("fault", ["307-here", "308-here"])
def test_a_redirect_within_the_origin_is_followed_with_the_post(
    fault: str, server: FakeOpenAIServer, config: AgentConfig, catalog: Catalog
) -> None:
    server.state.faults = {1: fault}
    session = record(server, config, catalog, inputs=INPUTS[:1])
    assert session.complete, session.error
    first, again = server.requests[:2]
    assert again.path == "/v1/moved/chat/completions" and again.body == first.body


@pytest.mark.parametrize(
    "template",
    [
        "{base}?api_key={key}",
        "{base}?alt=json&access_token={key}",
        "{scheme}://user:{key}@{host}/v1",
        "{scheme}://{key}@{host}/v1",
    ],
)
def test_a_key_in_the_base_url_is_written_nowhere(
    template: str,
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    workspace_path: Path,
    tmp_path: Path,
) -> None:
    key = f"sk-in-url-{uuid.uuid4().hex}"
    scheme, rest = server.base_url.split("://")
    host = rest.split("/")[0]
    base_url = template.format(base=server.base_url, key=key, scheme=scheme, host=host)
    settings = settings_for(server)
    settings = ProviderSettings(
        settings.provider, settings.model, base_url=base_url, max_retries=0, timeout_s=10
    )
    if "@" in base_url:
        # The OpenAI-style clients cannot send userinfo (urllib failed on it as "Name or
        # service not known"): refused before anything starts, the key not in the message.
        with pytest.raises(InputError, match="carries a user name or password") as refused:
            record(server, config, catalog, inputs=INPUTS[:1], settings=settings)
        assert key not in str(refused.value) and not server.requests
        return
    session = record(server, config, catalog, inputs=INPUTS[:1], settings=settings)
    assert session.complete, session.error
    # The query follows the endpoint's path (it swallowed the path: `/v1?api_key=KEY/chat/…`).
    path, _, query = server.requests[0].path.partition("?")
    assert path == "/v1/chat/completions" and key in query
    assert "[redacted]" in str(session.provider.base_url)
    # The file verifies and replays: its client is built on the URL without the key.
    reread = session_from_json_text(session_to_json_text(session))
    assert sessions.verify(reread).ok and sessions.replay(reread).identical
    sessions.write_session_file(session, tmp_path / "run.axsession.json")
    with open_workspace(workspace_path) as ws:
        service = ws.sessions
        stored = service.save(session)
        service.remember_provider(settings)  # what the GUI keeps for the next run
        service.export(stored, tmp_path / "export.axsession.json")
        remembered = service.last_provider()
    assert key not in _written(tmp_path), template
    assert key not in session_to_json_text(session)
    # A redacted URL is not used as if it were the real one.
    for saved in (ProviderSettings.of_session(session.provider), remembered):
        assert saved is not None
        with pytest.raises(InputError, match="held credentials, redacted when it was saved"):
            build_client(saved)


def test_a_session_file_with_a_key_in_its_urls_is_stored_and_exported_without_it(
    recorded_json: dict[str, object], workspace_path: Path, tmp_path: Path
) -> None:
    key = f"sk-foreign-{uuid.uuid4().hex}"
    doc: Any = recorded_json
    doc["provider"]["base_url"] = f"https://user:{key}@example.invalid/v1?token={key}"
    doc["exchanges"][0]["http_attempts"] = [{"method": "POST", "url": f"https://x/v1?key={key}"}]
    path = tmp_path / "in" / "foreign.axsession.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    with open_workspace(workspace_path) as ws:
        imported = ws.sessions.import_file(path)
        ws.sessions.export(imported.id, out / "export.axsession.json")
    assert key not in _written(out) and key not in workspace_path.read_bytes().decode(
        "utf-8", "replace"
    )


def test_an_echo_of_the_key_in_any_derived_form_is_scrubbed(
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    planted_key: str,
    tmp_path: Path,
) -> None:
    # The first reply carries every form in the model's answer; a later request is
    # refused with all of them quoted back.
    server.state.faults = {1: "echo-forms", 2: "401-echo-forms"}
    settings = settings_for(server, api_key_env="AXMEM_TEST_KEY")
    session: Session = record(server, config, catalog, inputs=INPUTS[:1], settings=settings)
    assert session.error is not None and session.error.kind == "auth"
    text = session_to_json_text(session)
    assert "[redacted]" in session.error.message and "[redacted]" in text
    assert _leaks(planted_key, text) == []
    sessions.write_session_file(session, tmp_path / "echo.axsession.json")
    assert _leaks(planted_key, _written(tmp_path)) == []


def test_the_cli_prints_no_derived_form(
    server: FakeOpenAIServer,
    workspace_path: Path,
    planted_key: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server.state.faults = {1: "401-echo-forms"}
    out_file = tmp_path / "cli.axsession.json"
    args = [
        "run", "--workspace", str(workspace_path), "--agent", "triage",
        "--input", f"document={INPUTS[0]['document']}", "--input", f"query={INPUTS[0]['query']}",
        "--provider", "openai-compatible", "--model", "scripted-a",
        "--base-url", server.base_url, "--api-key-env", "AXMEM_TEST_KEY",
        "--max-retries", "0", "-o", str(out_file),
    ]  # fmt: skip
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "refused the credentials" in captured.err
    assert _leaks(planted_key, captured.out + captured.err) == []
    assert _leaks(planted_key, _written(tmp_path)) == []
    settings = settings_for(server, api_key_env="AXMEM_TEST_KEY")
    server.state.faults = {len(server.requests) + 1: "401-echo-forms"}
    report = check_connection(settings)
    assert not report.ok and _leaks(planted_key, report.message) == []


def test_a_recording_whose_server_echoed_the_key_verifies_and_replays(
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    planted_key: str,
) -> None:
    # The echo is scrubbed from the reply and from every later request that quotes it:
    # the digests were those of the requests before the scrub, so the studio's own file
    # failed its verify ("the stored request of call #1 does not match its digest").
    server.state.faults = {1: "echo-forms"}
    settings = settings_for(server, api_key_env="AXMEM_TEST_KEY")
    session: Session = record(server, config, catalog, inputs=INPUTS[:1], settings=settings)
    text = session_to_json_text(session)
    assert _leaks(planted_key, text) == [] and "[redacted]" in text
    assert any("[redacted]" in json.dumps(ex.request) for ex in session.exchanges[1:])
    reread = session_from_json_text(text)
    report = sessions.verify(reread)
    assert report.ok, report.render()
    assert sessions.replay(reread).identical
