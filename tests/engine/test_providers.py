"""Providers through axllm against the fake server: test connection, structured-output
modes on the wire, and clear errors."""

from __future__ import annotations

import importlib
import socket
from typing import Any

import pytest

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.providers import PROVIDERS, ProviderSettings
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.engine.providers import make_client, model_choices, test_connection
from axmem_gui.services.providers import check_connection
from tests.engine.conftest import INPUTS, record
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.session_docs import session_json


def test_connection_ok(server: FakeOpenAIServer) -> None:
    report = check_connection(settings_for(server))
    assert report.ok and report.message == "connected" and report.model == "scripted-a"
    assert report.reply and len(server.requests) == 1


def test_connection_to_nothing_says_so() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nobody listens there
    settings = ProviderSettings(
        "openai-compatible", "m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0
    )
    report = test_connection(make_client(settings, None))
    assert not report.ok
    assert "connection to the model server failed" in report.message
    assert "base URL" in report.message


@pytest.mark.parametrize(
    ("mode", "wire_key", "wire_value"),
    [
        ("json_object", "response_format", {"type": "json_object"}),
        ("native", "response_format", None),
        ("function", "tool_choice", None),
    ],
)
def test_structured_output_mode_reaches_the_wire_and_runs(
    server: FakeOpenAIServer,
    config: AgentConfig,
    catalog: Catalog,
    mode: str,
    wire_key: str,
    wire_value: object,
) -> None:
    doc = session_json(record(
        server,
        config,
        catalog,
        inputs=(INPUTS[0],),
        settings=settings_for(server, structured_output=mode),
    ))
    assert doc["status"] == "complete", doc["error"]
    assert doc["provider"]["structured_output"] == mode
    first = server.requests[0].body
    assert wire_key in first
    if wire_value is not None:
        assert first[wire_key] == wire_value
    if mode == "native":
        assert first["response_format"]["type"] == "json_schema"
    assert doc["client_features"]["structured_output_modes"] == [mode]


def test_settings_validation() -> None:
    with pytest.raises(InputError, match="structured output mode 'xml'"):
        ProviderSettings("ollama", "llama3.2", structured_output="xml")
    with pytest.raises(InputError, match="needs a model name"):
        ProviderSettings("ollama", None, structured_output="json_object")
    with pytest.raises(InputError, match="needs a base URL"):
        make_client(ProviderSettings("openai-compatible", "m"), None)
    with pytest.raises(InputError, match="unknown provider 'nope'") as unknown:
        make_client(ProviderSettings("nope", "m"), "key-123456789")
    # `local` (the bundled model) is a provider a user can choose: the list names it.
    assert str(unknown.value).endswith(", scripted, local")
    round_trip = ProviderSettings.from_json(ProviderSettings("vllm", "m", timeout_s=5).to_json())
    assert round_trip == ProviderSettings("vllm", "m", timeout_s=5)


def test_provider_catalogue() -> None:
    assert {"openai", "anthropic", "google-gemini", "openai-compatible", "ollama"} <= set(PROVIDERS)
    assert PROVIDERS["ollama"].local and not PROVIDERS["anthropic"].local
    assert "gpt-5-mini" in model_choices("openai")
    assert model_choices("openai-compatible") == []
    # Hosted providers build with a key and no network access at construction.
    client = make_client(ProviderSettings("anthropic", "claude-sonnet-5"), "sk-ant-test-0000000")
    assert client.model == "claude-sonnet-5"


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        (
            ProviderSettings("scripted"),
            "Scripted model (in process, no network — the sample's) needs a model name "
            "(e.g. scripted-a or scripted-b)",
        ),
        (
            ProviderSettings("openai-compatible", base_url="http://127.0.0.1:9/v1"),
            "OpenAI-compatible server needs a model name",
        ),
        (ProviderSettings("ollama"), "Ollama needs a model name"),
    ],
)
def test_a_provider_without_a_default_model_asks_for_one(
    settings: ProviderSettings, said: str
) -> None:
    # It said "unknown provider 'openai-compatible' (No model defined); known: ...".
    with pytest.raises(InputError) as refused:
        make_client(settings, None)
    assert str(refused.value).startswith(said)
    assert "unknown provider" not in str(refused.value)


def test_axllm_parses_its_provider_table_once_per_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    # axllm 25.4.6 parsed its 100 KB provider table on every lookup (about 13 per model
    # call: a third of a replay's time); engine.providers, imported above, caches each
    # profile's entry.
    ai = importlib.import_module("axllm.ai")
    parses: list[int] = []
    real = ai._core_json_parse

    def counted(value: str) -> Any:
        parses.append(len(value))
        return real(value)

    monkeypatch.setattr(ai, "_core_json_parse", counted)
    first = ai.provider_descriptor("openai-compatible")
    assert first["id"] == "openai-compatible"
    for _ in range(5):
        assert ai.provider_descriptor("openai-compatible") == first
    assert len([n for n in parses if n > 50_000]) <= 1
    first["transport"] = "changed by a caller"
    assert ai.provider_descriptor("openai-compatible")["transport"] != "changed by a caller"
