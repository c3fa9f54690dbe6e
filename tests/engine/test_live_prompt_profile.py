"""What you preview is what is sent: a live run of the sample agent against a fake server
on 127.0.0.1, its catalog with mixed-case, accented, digit-first and emoji ids added. The
`### Available Skills` block that reached the server, for each stage, equals byte for byte
`axmem render index --ax-version <the profile the session names>`; Ax's own profile shows
another order."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.session.format import parse_session
from axmem_gui.core.session.payloads import message_text
from axmem_gui.services import sessions
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for

ADDED_IDS = (
    "Deploy-Freeze", "Zebra-runbook", "2fa-reset", "a-b", "aB", "a_b",
    "éclair-rollback", "Ünicode-owner", "\U0001f680-launch-status", "9-lives",
)  # fmt: skip
ANCHOR = "\n\nLoad a skill's full guide"


def _sample(name: str) -> Any:
    return json.loads((resources.files("axmem_gui") / "sample" / name).read_text("utf-8"))


def _block(system: str) -> str:
    start = system.index("### Available Skills")
    return system[start : system.index(ANCHOR, start)]


def _section(system: str) -> str:
    """From the heading to the end of the Loaded Skills paragraph (the next heading)."""
    start = system.index("### Available Skills")
    loaded = system.index("### Loaded Skills\n\nWhen `inputs.loadedSkills`", start)
    return system[start : system.index("\n\n### ", loaded + 1)]


def _render(capsys: pytest.CaptureFixture[str], catalog_file: Path, *args: str) -> str:
    assert main(["render", "index", "--catalog", str(catalog_file), *args]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\n")
    return out[:-1]


def test_the_block_sent_is_the_profiles_render(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = _sample("catalog.json")
    raw["skills"] = [
        *raw["skills"],
        *(
            {"id": i, "name": f"{i} guide", "description": f"When {i} matters", "content": "x"}
            for i in ADDED_IDS
        ),
    ]
    catalog = catalog_from_json_value(raw, "catalog")
    assert {s.id for s in catalog.skills} >= set(ADDED_IDS)
    agent = next(a for a in _sample("agents.json") if a["name"] == "ops-assistant")
    config = agent_config_from_json(agent, "sample agent")
    inputs = [{"userRequest": "Freeze deploys for the 2fa reset?"}]
    doc = sessions.run_agent(config, catalog, inputs, settings_for(server))
    assert doc.status == "complete", doc.error
    profile = doc.versions.prompts
    versions = doc.to_json()["versions"]
    assert isinstance(versions, dict)
    assert profile == versions["prompt_profile"] == "axllm-25.4.6"

    sent: dict[str, str] = {}
    sections: dict[str, str] = {}
    for request in server.requests:
        system = message_text(request.body["messages"][0]["content"])
        for stage in ("executor", "distiller"):
            if f"You (`{stage}`)" in system and "### Available Skills" in system:
                sent.setdefault(stage, _block(system))
                sections.setdefault(stage, _section(system))
    assert set(sent) == {"executor", "distiller"}

    catalog_file = tmp_path / "catalog.json"
    catalog_file.write_text(json.dumps(raw), encoding="utf-8")
    common = ["--agent-inputs", "userRequest", "--context-map", "--ax-version", profile]
    for stage, block in sent.items():
        assert _render(capsys, catalog_file, "--index-only", "--stage", stage, *common) == block
        # the whole section too (the studio's runs install the used() callbacks)
        whole = _render(capsys, catalog_file, "--stage", stage, "--skill-usage", *common)
        assert whole == sections[stage]
    # the ids in the order axllm sent them: by code point (upper case, then lower case,
    # then accented letters and emoji); Ax's own profile orders them otherwise
    ids = [line.split("`")[1] for line in sent["executor"].splitlines()[1:]]
    added = [i for i in ids if i in ADDED_IDS]
    assert added == sorted(ADDED_IDS)
    ts = _render(capsys, catalog_file, "--index-only", "--agent-inputs", "userRequest")
    assert ts != sent["executor"]
    assert sorted(ts.splitlines()) == sorted(sent["executor"].splitlines())



def test_a_session_without_the_key_follows_its_axllm() -> None:
    sample = _sample("session-ops-assistant.axsession.json")
    assert sample["versions"]["prompt_profile"] == "axllm-25.4.6"
    assert sample["agent"]["signature"] == "userRequest:string -> answer:string"
    assert parse_session(sample).versions.prompts == "axllm-25.4.6"
    # files written before `versions.prompt_profile` stay readable, and write back as read:
    # axllm rendered their prompts
    del sample["versions"]["prompt_profile"]
    old = parse_session(sample)
    assert old.versions.prompt_profile is None and old.versions.prompts == "axllm-25.4.6"
    old_versions = old.to_json()["versions"]
    assert isinstance(old_versions, dict) and "prompt_profile" not in old_versions
    # a TypeScript app's recording (tools/recorders) names @ax-llm/ax: its prompts are Ax's
    from axmem_gui.core.session.model import Versions

    assert Versions(ax="24.0.21").prompts == "ax-24.0.21"
