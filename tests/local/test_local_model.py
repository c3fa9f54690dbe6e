"""Against the real bundled model (SmolLM2-135M-Instruct served by llama-cpp-python on
127.0.0.1): the live path works with a real server's quirks, a recorded session replays
offline as identical, and an eval's report agrees with the sessions it recorded.

A 135M model answers badly: these tests check the pipeline (requests reached the model,
the session holds what came back, replay reproduces it, the eval's counts match its
sessions), never the model's quality. Run with `make test-local` (installs the extra).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.evals.report import run_from_session
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.engine.local_model import MODEL_NAME, LocalModelServer, local_model_status
from axmem_gui.services import sessions
from axmem_gui.services.evals import EvalService
from axmem_gui.services.local_model import served_settings
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from tests.helpers.store import raw

pytestmark = pytest.mark.local

#: Fewer actor turns than the sample agent's 6, and no context map (its two update calls
#: per run read the whole prompt again), keep a run of a model that never finishes short;
#: the path through axllm is the same.
LITE = {"maxActorSteps": 3, "contextMap": None}


@pytest.fixture(scope="module")
def local_server() -> Iterator[LocalModelServer]:
    status = local_model_status()
    if not status.ready:
        pytest.fail(f"{status.message} (make test-local installs it)")
    server = LocalModelServer().start()
    try:
        print(f"\nlocal model loaded and answering in {server.load_seconds:.2f} s")
        yield server
    finally:
        server.stop()


@pytest.fixture
def sample_ws(tmp_path: Path) -> Iterator[Workspace]:
    ws = raw(init_workspace(tmp_path / "sample.axmem", sample=True))
    try:
        agent = ws.agents.get("ops-assistant")
        assert agent is not None
        ws.agents.save("ops-assistant", {**agent, **LITE})
        yield ws
    finally:
        ws.close()


def _settings(server: LocalModelServer) -> ProviderSettings:
    return served_settings(server, ProviderSettings("local", timeout_s=300.0, max_retries=0))


def test_a_session_on_the_real_model_replays_offline_as_identical(
    local_server: LocalModelServer, sample_ws: Workspace
) -> None:
    config = sessions.agent_from_workspace(sample_ws, "ops-assistant")
    doc = sessions.run_agent(
        config,
        sample_ws.catalog(),
        [{"userRequest": "How do I ship a new release of the payments SDK?"}],
        _settings(local_server),
    )
    assert doc.provider.model == MODEL_NAME
    assert doc.provider.base_url == local_server.base_url
    exchanges = doc.exchanges
    assert exchanges, "no request reached the model"
    # Every model call is recorded with what the server sent back (or why it failed).
    answered = [e for e in exchanges if e.response is not None]
    assert answered, f"the server never answered: {doc.error}"
    for exchange in answered:
        assert exchange.response and exchange.response["results"], exchange
        assert exchange.usage and (exchange.usage.prompt_tokens or 0) > 0
    if doc.status != "complete":
        assert doc.error and doc.error.message
    report = sessions.replay(doc)
    assert report.identical, report.render()


def test_a_three_request_eval_agrees_with_its_recorded_sessions(
    local_server: LocalModelServer, sample_ws: Workspace
) -> None:
    eval_set = EvalService(sample_ws).get_set("ops-triggers")
    assert len(eval_set.cases) == 3
    report = EvalService(sample_ws).run(eval_set, _settings(local_server), repeat=1)
    print("\n" + json.dumps(_figures(report.to_json()), indent=1))
    assert report.status == "complete"
    assert [(r.case, r.attempt) for r in report.runs] == [(c.name, 1) for c in eval_set.cases]
    docs = EvalService(sample_ws).sessions_of(report)
    assert len(docs) == 3, "every run is a stored session"
    for run, doc in zip(report.runs, docs, strict=True):
        assert doc.origin is not None
        assert run.session_id == doc.id and doc.origin.extra["eval_run"] == report.id
        assert len(doc.exchanges) == run.model_calls > 0
        assert run_from_session(run.case, run.attempt, doc, run.duration_ms) == run
        if not run.counted:
            assert doc.error is not None
            assert run.reason == doc.error.message.splitlines()[0].strip()
    totals = report.totals()
    assert totals["counted"] + totals["failed"] == 3
    assert totals["prompt_tokens"] == sum(
        (e.usage.prompt_tokens or 0) if e.usage else 0 for d in docs for e in d.exchanges
    )
    for case, stats in zip(eval_set.cases, report.cases(), strict=True):
        mine = [r for r in report.runs if r.case == case.name and r.counted]
        assert stats.counted == len(mine)
        assert stats.hits == sum(1 for r in mine if r.hit(case))
        for trigger in stats.triggers:
            assert trigger.loaded == sum(1 for r in mine if trigger.id in r.loaded(trigger.kind))
    metrics = report.metrics()
    assert metrics.loaded == sum(
        len(r.loaded_skills) + len(r.loaded_memories) for r in report.runs if r.counted
    )
    # The stored run reads back with the same figures.
    assert EvalService(sample_ws).report(report.id).to_json() == report.to_json()


def test_the_cli_starts_the_bundled_model_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cli.axmem"
    ws = raw(init_workspace(path, sample=True))
    try:
        eval_set = EvalService(ws).get_set("ops-triggers")
        one_case = dataclasses.replace(eval_set, name="one", cases=eval_set.cases[:1])
        EvalService(ws).save_set(one_case)
        agent = ws.agents.get("ops-assistant")
        assert agent is not None
        ws.agents.save("ops-assistant", {**agent, **LITE})
    finally:
        ws.close()
    code = main(
        ["eval", "run", "-w", str(path), "--set", "one", "--provider", "local",
         "--repeat", "1", "--timeout", "300", "--max-retries", "0", "--json"]
    )  # fmt: skip
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    assert "local model serving at http://127.0.0.1:" in out.err
    report = json.loads(out.out)
    assert report["provider"]["model"] == MODEL_NAME
    assert report["totals"]["planned"] == 1 and len(report["runs"]) == 1
    assert report["passed"] == (code == 0)


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    return {
        "totals": report["totals"],
        "metrics": report["metrics"]["all"],
        "cases": [
            {
                "name": c["name"],
                "rate": c["rate"],
                "runs": c["runs"],
                "searches": c["searches"],
                "failures": c["failures"],
            }
            for c in report["cases"]
        ],
        "per_run_ms": [r["duration_ms"] for r in report["runs"]],
    }
