"""The `axmem render/search/simulate/conformance` commands (contract other tools use)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main

CATALOG = {
    "skills": [
        {"id": "release-checklist", "name": "Release checklist",
         "description": "Steps for shipping a new package release safely",
         "content": "1. Bump version\n2. Run tests\n3. Tag and publish"},
        {"id": "incident-response", "name": "Incident response",
         "description": "How to acknowledge, triage, and escalate incidents",
         "content": "Acknowledge the page, assess blast radius, escalate to on-call."},
        {"id": "style-guide", "name": "Writing style guide",
         "description": "Tone and formatting rules for customer-facing docs",
         "content": "Use plain language. Prefer short sentences."},
    ],
    "memories": [
        {"id": "coffee-preference",
         "content": "User prefers oat-milk cappuccino every morning at 9am."},
        {"id": "deploy-window",
         "content": "Production deploys are only allowed on Tuesday afternoons."},
        {"id": "team-roster",
         "content": "The platform team is Alice, Bob, and Carol; Alice is on-call."},
    ],
}  # fmt: skip
INDEX_EXECUTOR = (
    "### Available Skills\n"
    "- `incident-response` — Incident response — How to acknowledge, triage, and escalate "
    "incidents\n"
    "- `release-checklist` — Release checklist — Steps for shipping a new package release "
    "safely\n"
    "- `style-guide` — Writing style guide — Tone and formatting rules for customer-facing docs"
)


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(CATALOG), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_render_index_sections(capsys: pytest.CaptureFixture[str], catalog: Path) -> None:
    code, out, _ = run(capsys, "render", "index", "--catalog", str(catalog), "--index-only")
    assert code == 0 and out == INDEX_EXECUTOR + "\n"
    code, out, _ = run(capsys, "render", "index", "--catalog", str(catalog))
    assert out.startswith(INDEX_EXECUTOR + "\n\nLoad a skill's full guide")
    assert out.endswith("to load additional skills as needed.\n")
    code, out, _ = run(
        capsys, "render", "index", "--catalog", str(catalog), "--stage", "distiller",
        "--runtime", "python",
    )  # fmt: skip
    assert out.startswith("### Available Skills\n\n- `incident-response`")
    assert "e.g." not in out and "carries over to the executor phase" in out


def test_render_user_turn_fields(capsys: pytest.CaptureFixture[str], catalog: Path) -> None:
    _, out, _ = run(
        capsys, "render", "loaded-skills", "--catalog", str(catalog), "--ids",
        "style-guide,release-checklist",
    )  # fmt: skip
    assert out == (
        "Loaded Skills: ### Release checklist\n\nID: `release-checklist`\n\n1. Bump version\n"
        "2. Run tests\n3. Tag and publish\n\n### Writing style guide\n\nID: `style-guide`\n\n"
        "Use plain language. Prefer short sentences.\n"
    )
    _, out, _ = run(
        capsys, "render", "memories", "--catalog", str(catalog), "--ids", "team-roster",
        "--value-only",
    )  # fmt: skip
    assert out == (
        "### Memory\n\nID: `team-roster`\n\nThe platform team is Alice, Bob, and Carol; "
        "Alice is on-call.\n"
    )
    _, out, _ = run(
        capsys, "render", "hints", "--catalog", str(catalog), "--task",
        "ship the release and check the deploy window -",
    )  # fmt: skip
    assert out == (
        "Relevance Hints: Skills:\n- `release-checklist` — Release checklist\nMemories:\n"
        "- `deploy-window` — Production deploys are only allowed on Tuesday afternoons.\n"
    )
    code, out, err = run(capsys, "render", "hints", "--catalog", str(catalog), "--task", "task")
    assert (code, out) == (0, "") and "omits the Relevance Hints field" in err
    code, out, err = run(
        capsys, "render", "hints", "--catalog", str(catalog), "--task", "release incident",
        "--ranking", '{"topK": 1, "minScore": 0}', "--json",
    )  # fmt: skip
    events = json.loads(out)["events"]
    assert [len(e["shortlist"]) for e in events] == [1, 0]


def test_search_text_and_json(capsys: pytest.CaptureFixture[str], catalog: Path) -> None:
    code, out, _ = run(
        capsys, "search", "skills", "--catalog", str(catalog), "how do I ship a release", "style"
    )
    assert code == 0
    assert out == (
        'search "how do I ship a release"\n'
        "  tokens: ship release\n"
        "  1. release-checklist  score=1 raw=1.1552453009332422 coverage=1 matched=release\n"
        'search "style"\n'
        "  tokens: style\n"
        "  1. style-guide  score=1 raw=1.0397207708399179 coverage=1 matched=style\n"
        "result ids: release-checklist, style-guide\n"
    )
    _, out, _ = run(
        capsys, "search", "memories", "--catalog", str(catalog), "--loaded", "deploy-window",
        "--json", "deploy window alice", "deploy window alice ",
    )  # fmt: skip
    data = json.loads(out)
    assert data["queries"] == ["deploy window alice"]  # trimmed and de-duplicated
    assert data["alreadyLoadedIds"] == ["deploy-window"]
    (per_query,) = data["perQuery"]
    assert per_query["tokens"] == ["deploy", "window", "alice"]
    assert [(r["id"], r["matchedTerms"]) for r in per_query["ranked"]] == [
        ("team-roster", ["alice"])
    ]
    assert data["resultIds"] == ["team-roster"]


def test_search_explain(capsys: pytest.CaptureFixture[str], catalog: Path) -> None:
    _, out, _ = run(
        capsys, "search", "skills", "--catalog", str(catalog), "--json", "--explain",
        "style-guide", "release",
    )  # fmt: skip
    (why,) = json.loads(out)["explain"]
    assert why["id"] == "style-guide" and why["returned"] is False and why["rank"] is None


def test_search_policy_error(capsys: pytest.CaptureFixture[str], catalog: Path) -> None:
    code, out, err = run(capsys, "search", "skills", "--catalog", str(catalog), "   ")
    assert code == 2 and out == ""
    policy = "[POLICY] discover(...) skills entries must be non-empty strings."  # Ax's text
    assert err == f"axmem: error: {policy}\n"


def test_simulate(capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.json"
    scenario.write_text(
        json.dumps(
            {
                "task": "ship the release and check the deploy window",
                "preloadedMemories": [{"id": "coffee-preference", "content": "oat milk"}],
                "turns": [{"discover": ["release"], "recall": ["deploy window"]}],
            }
        ),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "simulate", "--catalog", str(catalog), str(scenario), "--json")
    assert code == 0
    data: Any = json.loads(out)
    turns = data["endToEnd"]["executorTurns"]
    assert len(turns) == 2 and turns[0]["loadedSkills"] is None
    assert turns[1]["memories"].startswith("### Memory\n\nID: `coffee-preference`\n\noat milk")
    assert data["endToEnd"]["onLoadedSkills"][0][0]["id"] == "release-checklist"
    assert [e["taskChars"] for e in data["endToEnd"]["relevanceRankingEvents"]] == [46, 46]
    code, out, _ = run(capsys, "simulate", "--catalog", str(catalog), str(scenario))
    assert "=== executor turn 2" in out
    assert '--- discover(["release"]) -> release-checklist' in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON (line 1, column 1"),
        ('{"skills": [{"id": "a", "name": "A"}]}', "skills[0] 'a': field 'content' is missing"),
        ('{"skills": [{"id": "a", "name": 5, "content": ""}]}', "'a': field 'name' must"),
        ('{"memories": [{"id": 3, "content": "x"}]}', "memories[0]: field 'id' must be a string"),
        ('{"skills": 3}', "field 'skills' must be a list, got a number"),
        # The import's reader names what the old runtime reader let through or worded apart.
        ('{"memories": [{"id": "m", "content": null}]}', "field 'content' must be a string"),
        ("[1]", "skills[0]: skill must be an object, got a number"),
    ],
)
def test_bad_catalog_exits_2_naming_entry_and_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    for argv in (
        ["render", "index", "--catalog", str(bad)],
        ["search", "memories", "--catalog", str(bad), "x"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert err.startswith(f"axmem: error: {bad}: ") and message in err
        assert "Traceback" not in err


def test_bad_scenario_and_missing_files(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text('{"turns": [{"discover": [1]}]}', encoding="utf-8")
    code, _, err = run(capsys, "simulate", "--catalog", str(catalog), str(scenario))
    assert code == 2 and "turns[0].discover[0] must be a string" in err
    code, _, err = run(capsys, "conformance", "run", str(tmp_path / "none.json"))
    assert code == 2 and "not found" in err


def test_conformance_run_refuses_a_file_that_is_not_a_case_file(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    """A catalog given as the case file ran nothing and exited 0 with an empty result."""
    code, out, err = run(capsys, "conformance", "run", str(catalog))
    assert code == 2 and out == ""
    assert "not a conformance case file" in err and "looks like an Ax catalog" in err
    other = tmp_path / "other.json"
    other.write_text('{"turns": []}', encoding="utf-8")
    code, _, err = run(capsys, "conformance", "run", str(other))
    assert code == 2 and "none of 'cases', 'tokenizer', 'collation'" in err


def test_catalog_and_workspace_are_exclusive(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["render", "index", "--catalog", str(catalog), "--workspace", str(tmp_path / "w")])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_workspace_source_equals_catalog_source(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws.axmem"
    assert main(["init", str(workspace)]) == 0
    assert main(["import", str(catalog), "--workspace", str(workspace)]) == 0
    capsys.readouterr()
    _, from_workspace, _ = run(capsys, "render", "index", "--workspace", str(workspace))
    _, from_file, _ = run(capsys, "render", "index", "--catalog", str(catalog))
    assert from_workspace == from_file


def test_conformance_run_writes_expected_shape(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps(
            {
                "tokenizer": {"text": ["Fix the bugs"], "identifier": ["v2API"]},
                "collation": [["b", "A", "a"]],
                "cases": [{"id": "one", "skills": CATALOG["skills"], "task": "release",
                           "discoverCalls": [["style"]]}],
            }
        ),
        encoding="utf-8",
    )  # fmt: skip
    out = tmp_path / "out.json"
    code, _, err = run(capsys, "conformance", "run", str(cases), "-o", str(out))
    assert code == 0 and "1 case -> " in err  # was "1 cases"
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["tokenizer"]["text"] == [{"input": "Fix the bugs", "tokens": ["bugs"]}]
    assert data["tokenizer"]["identifier"] == [{"input": "v2API", "tokens": ["v2", "api"]}]
    assert data["collation"] == [["a", "A", "b"]]
    (case,) = data["cases"]
    assert case["id"] == "one"
    assert case["internals"]["skills"]["calls"][0]["resultIds"] == ["style-guide"]
    assert case["endToEnd"]["executorSystemAvailableSkills"] == INDEX_EXECUTOR
    assert case["endToEnd"]["relevanceRankingEvents"][0]["taskChars"] == len("release -")
