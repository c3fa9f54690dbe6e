"""Running trigger evals through the real agent path against the fake OpenAI-compatible
server: every run is a workspace session, the report agrees with those sessions, and bad
providers end runs as failed (with the reason) without losing the others."""

from __future__ import annotations

import dataclasses

import pytest

from axmem_gui.core.cancel import CancelFlag
from axmem_gui.core.errors import InputError
from axmem_gui.core.evals.report import run_from_session
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.engine.local_model import free_port
from axmem_gui.services import evals, sessions
from axmem_gui.services.workspace import OpenWorkspace
from tests.evals.conftest import make_set
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for
from tests.helpers.store import raw


def test_every_run_is_a_session_and_the_report_agrees_with_them(
    server: FakeOpenAIServer, ws: OpenWorkspace
) -> None:
    eval_set = ws.evals.get_set(None)
    seen: list[evals.EvalProgress] = []
    report = ws.evals.run(eval_set, settings_for(server), progress=seen.append)
    assert report.status == "complete" and report.passed
    assert [p.done for p in seen] == [1, 2, 3, 4] and seen[-1].total == 4
    assert len(report.runs) == 4 and all(r.counted for r in report.runs)
    docs = ws.evals.sessions_of(report)
    assert len(docs) == 4 and len(server.requests) == sum(len(d.exchanges) for d in docs)
    for run, doc in zip(report.runs, docs, strict=True):
        assert doc.origin is not None and doc.origin.kind == "eval"
        origin = doc.origin.extra
        assert origin["eval_run"] == report.id
        assert (origin["case"], origin["attempt"]) == (run.case, run.attempt)
        again = run_from_session(run.case, run.attempt, doc, run.duration_ms)
        assert again == run
    assert report.totals()["prompt_tokens"] == sum(
        e.tokens[0] for d in docs for e in d.exchanges
    )
    severe = report.cases()[0]
    assert severe.searches == (
        ("discover", eval_set.cases[0].inputs["query"], 2),
        ("recall", eval_set.cases[0].inputs["query"], 2),
    )
    # The run is stored and reads back with the same figures; a session replays offline.
    assert ws.evals.report("last").to_json() == report.to_json()
    assert sessions.replay(docs[0]).identical


def test_parallel_runs_give_the_same_figures(server: FakeOpenAIServer, ws: OpenWorkspace) -> None:
    eval_set = ws.evals.get_set(None)
    one = ws.evals.run(eval_set, settings_for(server))
    two = ws.evals.run(eval_set, settings_for(server), parallel=3)
    assert [c.to_json()["runs"] for c in two.cases()] == [c.to_json()["runs"] for c in one.cases()]
    assert [r.loaded_skills for r in two.runs] == [r.loaded_skills for r in one.runs]
    assert len({r.session_id for r in two.runs}) == 4


def test_an_unreachable_provider_marks_every_run_failed_with_the_reason(ws: OpenWorkspace) -> None:
    settings = ProviderSettings(
        "openai-compatible", "m", base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=0
    )
    report = ws.evals.run(ws.evals.get_set(None), settings, repeat=1)
    assert report.status == "complete" and not report.passed
    assert [r.status for r in report.runs] == ["failed", "failed"]
    assert all("connection to the model server failed" in r.reason for r in report.runs)
    # The failed sessions are kept (incomplete), one per run.
    assert [d.status for d in ws.evals.sessions_of(report)] == ["incomplete"] * 2
    assert report.cases()[0].reasons[0].startswith("run 1: failed: ")


def test_malformed_output_on_every_call_fails_each_run(
    server: FakeOpenAIServer, ws: OpenWorkspace
) -> None:
    server.state.fault_always = "malformed"
    report = ws.evals.run(ws.evals.get_set(None), settings_for(server), repeat=1)
    assert [r.status for r in report.runs] == ["failed", "failed"]
    assert all("response axllm cannot use" in r.reason for r in report.runs)
    assert report.totals()["counted"] == 0 and report.metrics().recall is None


def test_a_server_dying_mid_eval_fails_the_rest_and_counts_what_finished(
    ws: OpenWorkspace,
) -> None:
    srv = FakeOpenAIServer().start()
    stopped = False

    def progress(event: evals.EvalProgress) -> None:
        nonlocal stopped
        if event.done == 1 and not stopped:
            srv.stop()  # the server dies after the first run
            stopped = True

    try:
        report = ws.evals.run(ws.evals.get_set(None), settings_for(srv), progress=progress)
    finally:
        if not stopped:
            srv.stop()
    assert [r.status for r in report.runs] == ["complete", "failed", "failed", "failed"]
    assert report.totals()["counted"] == 1
    assert report.cases()[0].hits == 1 and report.cases()[0].counted == 1
    assert all(r.reason for r in report.runs[1:])


def test_a_cancelled_eval_keeps_its_finished_runs(
    server: FakeOpenAIServer, ws: OpenWorkspace
) -> None:
    token = CancelFlag()

    def progress(event: evals.EvalProgress) -> None:
        if event.done == 1:
            token.cancel()

    report = ws.evals.run(
        ws.evals.get_set(None), settings_for(server), cancel=token, progress=progress
    )
    assert report.status == "cancelled" and not report.passed
    # The run under way when the cancel came may have started: it ends cancelled (its
    # partial session kept); the rest never start.
    first, *rest = report.runs
    assert first.status == "complete" and all(r.status == "cancelled" for r in rest)
    assert report.totals()["counted"] == 1
    assert report.totals()["not_run"] == 4 - len(report.runs) >= 2
    stored = ws.evals.report(report.id)
    assert stored.status == "cancelled" and stored.runs == report.runs
    assert raw(ws).sessions.get(report.runs[0].session_id or "") is not None


def test_the_run_row_is_written_before_the_first_run_finishes(
    server: FakeOpenAIServer, ws: OpenWorkspace
) -> None:
    rows: list[str] = []

    def progress(event: evals.EvalProgress) -> None:
        rows.append(ws.evals.report("last").status)

    ws.evals.run(ws.evals.get_set(None), settings_for(server), repeat=1, progress=progress)
    assert rows == ["running", "running"]
    assert ws.evals.report("last").status == "complete"


def test_bad_input_is_refused_before_any_run(server: FakeOpenAIServer, ws: OpenWorkspace) -> None:
    typo = dataclasses.replace(make_set(), agent="no-such-agent")
    with pytest.raises(InputError, match="no agent named 'no-such-agent'"):
        ws.evals.run(typo, settings_for(server))
    case = make_set().cases[0]
    missing = dataclasses.replace(
        make_set(), cases=(dataclasses.replace(case, inputs={"query": "x"}),)
    )
    with pytest.raises(InputError, match="no value for input 'document'"):
        ws.evals.run(missing, settings_for(server))
    with pytest.raises(InputError, match="--repeat must be from 1 to 100"):
        ws.evals.run(make_set(), settings_for(server), repeat=0)
    assert server.requests == [] and raw(ws).eval_runs.count() == 0


def test_a_catalog_edit_shows_as_a_regression(server: FakeOpenAIServer, ws: OpenWorkspace) -> None:
    eval_set = ws.evals.get_set(None)
    before = ws.evals.run(eval_set, settings_for(server), repeat=1)
    skill = raw(ws).skills.get("release-notes")
    assert skill is not None
    # The edit makes release-notes match the request it must stay away from.
    raw(ws).skills.upsert(
        dataclasses.replace(skill, description="the most severe incident and who owns checkout")
    )
    after = ws.evals.run(eval_set, settings_for(server), repeat=1)
    assert before.catalog_digest != after.catalog_digest
    comparison = evals.compare(before, after)
    assert comparison.regressions[0].startswith("most severe: passed before (100%), fails now")
    assert "most severe: release-notes falsely triggers more: 0% -> 100%" in comparison.regressions


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        (ProviderSettings("scripted"), "needs a model name"),
        (ProviderSettings("openai-compatible", base_url="http://127.0.0.1:9/v1"), "needs a model"),
        (ProviderSettings("no-such-provider", "m"), "unknown provider 'no-such-provider'"),
        (ProviderSettings("openai-compatible", "m"), "needs a base URL"),
    ],
)
def test_an_eval_that_cannot_start_is_refused_before_anything_is_stored(
    ws: OpenWorkspace, settings: ProviderSettings, words: str
) -> None:
    eval_set = ws.evals.get_set("triage-triggers")
    with pytest.raises(InputError) as refused:
        ws.evals.run(eval_set, settings, repeat=1)
    assert words in str(refused.value)
    assert raw(ws).eval_runs.list() == [] and raw(ws).sessions.count() == 0
