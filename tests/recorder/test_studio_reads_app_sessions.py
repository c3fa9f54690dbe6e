"""The studio reads sessions recorded by apps: the TypeScript example's (recorded by
@axmem/ax-recorder on the real @ax-llm/ax 24.0.21, recorders/ax-ts/example/sessions/) and
the Python example's (tests/recorder/example_app/sessions/). They import, `verify` passes
(digests, catalog searches re-run, derived fields), host searches are shown as recorded,
compare and what-if work, and replay/rerun say the studio cannot run the app's code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.app_session import snapshots_read
from axmem_gui.core.session.format import session_from_json_text
from axmem_gui.core.session.model import Session
from axmem_gui.engine.providers import ProviderSettings
from axmem_gui.services import sessions
from axmem_gui.services.sessions import SessionService
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from tests.helpers.store import raw
from tests.recorder.example_app.triage_agent import SESSION as PY_SESSION

REPO = Path(__file__).resolve().parents[2]
TS_SESSION = REPO / "recorders" / "ax-ts" / "example" / "sessions" / "triage.axsession.json"


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = raw(init_workspace(tmp_path / "w.axmem"))  # the service under test takes the store
    yield workspace
    workspace.close()


def _write(doc: dict[str, Any], tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _raw(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


@pytest.mark.parametrize("path", [TS_SESSION, PY_SESSION], ids=["typescript", "python"])
def test_an_app_session_imports_and_verifies(path: Path, ws: Workspace) -> None:
    """On the old code a TypeScript file did not load at all (no `versions.axllm`)."""
    imported = sessions.import_session(ws, path)
    assert imported.stored
    session = SessionService(ws).get(imported.id)
    assert session.origin is not None and session.origin.kind == "app"
    assert sessions.claims_warning(session) == ""
    report = sessions.verify(session)
    assert report.ok, report.render()
    assert (report.calls, report.searches) == (len(session.exchanges), 2)
    assert [c.name for c in session.forwards[0].function_call_list] == ["lookupOwner"]
    snapshots = snapshots_read(session)
    labels = ["before forward 1", "after forward 1", "after forward 2"]
    assert [s.label for s in snapshots] == labels
    assert [s.update.status for s in snapshots[1:] if s.update] == ["updated", "updated"]


@pytest.mark.parametrize("path", [TS_SESSION, PY_SESSION], ids=["typescript", "python"])
def test_an_app_session_is_exported_as_the_file_it_was_imported_from(
    path: Path, ws: Workspace, tmp_path: Path
) -> None:
    """The fields a TypeScript recording leaves to readers are derived where they are
    read, never written into it: an import then an export is the same file."""
    service = SessionService(ws)
    imported = service.import_file(path)
    out = tmp_path / "out.axsession.json"
    service.export(imported.id, out)
    assert out.read_bytes() == path.read_bytes()


def test_the_cli_verifies_and_imports_a_typescript_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "w.axmem"
    assert main(["init", str(workspace)]) == 0
    assert main(["verify", str(TS_SESSION)]) == 0
    assert "verified: 14 stored requests match their digests, 2 searches" in capsys.readouterr().out
    assert main(["sessions", "import", str(TS_SESSION), "-w", str(workspace)]) == 0
    out = capsys.readouterr()
    assert "imported session ts-triage-example (triage, 14 model calls)" in out.out
    assert "warning" not in out.err


@pytest.mark.parametrize(
    ("path", "how"),
    [
        (TS_SESSION, "with AxSessionReplayer from @axmem/ax-recorder"),
        (PY_SESSION, "the axsession_replay pytest fixture of axmem_gui.recorder"),
    ],
    ids=["typescript", "python"],
)
def test_replay_and_rerun_point_to_replaying_in_the_apps_tests(path: Path, how: str) -> None:
    doc = sessions.read_session_file(path)
    reason = sessions.can_replay(doc)
    assert reason is not None and "the studio cannot replay it, because your agent's code" in reason
    assert how in reason
    with pytest.raises(InputError, match="the studio cannot rerun it"):
        sessions.rerun_session(
            doc, ProviderSettings("openai-compatible", "m", base_url="http://127.0.0.1:9/v1")
        )


def test_the_cli_replay_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(TS_SESSION)]) == 2
    assert "replay it in your own tests with AxSessionReplayer" in capsys.readouterr().err


def test_verify_names_a_changed_catalog_search_result(tmp_path: Path) -> None:
    doc = _raw(TS_SESSION)
    doc["forwards"][0]["searches"][1]["results"] = [
        {"id": "mem-user-pref", "content": "The user prefers one-sentence answers."}
    ]
    report = sessions.verify(sessions.read_session_file(_write(doc, tmp_path, "t.axsession.json")))
    assert [d.where for d in report.differences] == ["forwards[0].searches[1].results"]


def test_verify_checks_that_each_typescript_turn_is_the_code_of_its_call(tmp_path: Path) -> None:
    doc = _raw(TS_SESSION)
    doc["forwards"][0]["turns"][3]["code"] = "await final('something else', {});"
    report = sessions.verify(sessions.read_session_file(_write(doc, tmp_path, "t.axsession.json")))
    assert [(d.where, d.message) for d in report.differences] == [
        ("forwards[0].turns[3]", "the actor turn call #3 did not write this code")
    ]


def test_verify_compares_the_map_update_with_what_ax_reported(tmp_path: Path) -> None:
    doc = _raw(TS_SESSION)
    doc["forwards"][1]["context_map_update_ax"]["operations"].append(
        {"type": "ADD", "section": "error_patterns", "content": "x"}
    )
    report = sessions.verify(sessions.read_session_file(_write(doc, tmp_path, "t.axsession.json")))
    assert [(d.where, d.message) for d in report.differences] == [
        (
            "forwards[1].context_map_update",
            "the context-map update read from the map calls disagrees with Ax: "
            "1 item(s) added here, Ax applied 2 ADD operation(s)",
        )
    ]


def test_host_searches_are_shown_as_recorded_not_searched_again(tmp_path: Path) -> None:
    doc = _raw(PY_SESSION)
    for search in doc["forwards"][0]["searches"]:
        search["source"] = "host"
        search["results"] = [{"id": "from-the-apps-vector-store", "content": "not in the catalog"}]
    report = sessions.verify(sessions.read_session_file(_write(doc, tmp_path, "h.axsession.json")))
    assert report.ok, report.render()
    assert report.host_searches == 2
    assert (
        "2 more were answered by the app's own search callback and are shown as recorded"
        in report.render()
    )


def test_compare_and_whatif_work_on_app_sessions() -> None:
    ts = sessions.read_session_file(TS_SESSION)
    py = sessions.read_session_file(PY_SESSION)
    comparison = sessions.compare(ts, py).to_json()
    assert comparison["a"] == "ts-triage-example (OpenAI/scripted-a)"
    assert comparison["identical_prompts"] is False, "TypeScript and axllm prompts differ in places"
    assert len(comparison["calls"]) == 15
    catalog = ts.catalog.catalog
    edited = Catalog(
        tuple(s for s in catalog.skills if s.id != "incident-triage"), catalog.memories
    )
    report = sessions.whatif(ts, edited).to_json()
    assert report["backend"] == "axmem-ax" and report["profile"] == "ax-24.0.21"
    changed = [c for c in report["calls"] if not c["same"]]
    assert [(c["kind"], c["recorded"], c["now"]) for c in changed] == [
        ("discover", ["incident-triage"], [])
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["forwards"][0].__setitem__("function_calls", "lookupOwner()"),
            r"forwards\[0\]: field 'function_calls' must be a list",
        ),
        (
            lambda d: d["forwards"][0]["function_calls"][0].pop("name"),
            r"forwards\[0\]\.function_calls\[0\]: field 'name' is missing",
        ),
        (
            lambda d: d["forwards"][0]["searches"][0].__setitem__("source", "shell"),
            r"searches\[0\]: field 'source' must be 'catalog' or 'host', got 'shell'",
        ),
        (lambda d: d["versions"].pop("ax"), r"versions: field 'axllm' is missing"),
        # what the typed reading relies on is checked where the file enters
        (
            lambda d: d["forwards"][0]["function_calls"][0].__setitem__("call_index", "3"),
            r"forwards\[0\]\.function_calls\[0\]: field 'call_index' must be an integer",
        ),
        (
            lambda d: d["forwards"][0]["function_calls"][0].__setitem__("error", "boom"),
            r"forwards\[0\]\.function_calls\[0\]: field 'error' must be an object",
        ),
        (
            lambda d: d["exchanges"][0]["params"].__setitem__("temperature", "hot"),
            r"exchanges\[0\]\.params: field 'temperature' must be a number",
        ),
        (
            lambda d: d["recorder"].__setitem__("truncated", {"after_exchange": 3}),
            r"recorder\.truncated: field 'reason' is missing",
        ),
    ],
    ids=[
        "function_calls not a list",
        "a call without a name",
        "unknown search source",
        "no runtime version",
        "a call's place not a number",
        "a call's error not an object",
        "a parameter of the wrong type",
        "a recording stop without its reason",
    ],
)
def test_hostile_app_files_are_refused_naming_the_place(
    change: Any, message: str, tmp_path: Path
) -> None:
    doc = _raw(TS_SESSION)
    change(doc)
    with pytest.raises(InputError, match=message):
        sessions.read_session_file(_write(doc, tmp_path, "bad.axsession.json"))


def test_loaded_vs_used_counts_an_app_sessions_hooks() -> None:
    from axmem_gui.core.session.analytics import usage_from_sessions

    ts = sessions.read_session_file(TS_SESSION)
    report = usage_from_sessions([ts], ts.catalog.catalog)
    used = report.entry("memory", "mem-checkout-owner")
    skill = report.entry("skill", "incident-triage")
    assert used is not None and (used.loaded, used.used, used.status) == (1, 1, "used")
    assert skill is not None and (skill.loaded, skill.used) == (1, 0)
    assert [f"{e.kind}:{e.id}" for e in report.never_loaded] == [
        "skill:release-guide",
        "memory:mem-user-pref",
        "memory:mem-search-owner",
    ]


def test_both_recorders_write_the_apps_records_in_one_shape() -> None:
    """What only an app's recording has (function calls, searches with their source,
    callbacks, turns, origin, request parameters) is the same records, with the same keys
    in the same order, whichever recorder wrote it: the Python one builds its document
    through the typed model, the TypeScript one by hand."""
    ts, py = (
        session_from_json_text(p.read_text("utf-8"), p.name) for p in (TS_SESSION, PY_SESSION)
    )

    def shapes(session: Session) -> dict[str, Any]:
        first = session.forwards[0]
        return {
            "origin": session.origin.key_order if session.origin else None,
            "function call": first.function_call_list[0].key_order,
            "search": [s.key_order for s in first.search_calls],
            "callback": first.callback_list[0].key_order,
            "turn": (first.turns or ())[0].key_order,
        }

    assert shapes(ts) == shapes(py)
    ts_params, py_params = (s.exchanges[0].params for s in (ts, py))
    assert ts_params is not None and py_params is not None
    assert ts_params.key_order == (*(py_params.key_order or ()), "function_call_mode")
