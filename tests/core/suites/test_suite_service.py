"""The suites service over real workspace files and real suite/catalog JSON files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import catalog_from_json_text
from axmem_gui.core.suites import Suite, SuiteCase, suites_from_json_text
from axmem_gui.services.store_access import store_of
from axmem_gui.services.suites import (
    SuiteChange,
    read_run_results_file,
    read_suite_file,
    run_suites,
    sample_catalog,
    sample_suites,
    write_junit,
    write_suite_file,
)
from axmem_gui.services.workspace import init_workspace, open_workspace


@pytest.fixture
def sample_ws_path(tmp_path: Path) -> Path:
    path = tmp_path / "team.axmem"
    init_workspace(path, sample=True).close()
    return path


def test_sample_workspace_suite_passes_and_records_its_run(sample_ws_path: Path) -> None:
    with open_workspace(sample_ws_path) as ws:
        assert [s.name for s in ws.suites.all()] == ["ops-retrieval"]
        (first,) = ws.suites.run()
        assert first.comparison is None  # nothing to compare with yet
        assert first.result.all_passed, [c.reasons for c in first.result.cases if not c.passed]
        assert store_of(ws).suites.last_run("ops-retrieval") == first.result.to_json()
        (second,) = ws.suites.run("ops-retrieval")
        assert second.comparison is not None
        assert second.comparison.regressions == ()
        assert second.comparison.rank_drops == {}


def test_deleting_a_skill_is_flagged_as_a_regression(sample_ws_path: Path) -> None:
    with open_workspace(sample_ws_path) as ws:
        ws.suites.run()
        assert ws.catalog.delete("skills", ["semver-policy"])
        (outcome,) = ws.suites.run()
    assert outcome.comparison is not None
    assert set(outcome.comparison.regressions) == {
        "semver bump",
        "breaking change",
        "release prep, three strings",
    }
    failed = outcome.result.case("semver bump")
    assert failed is not None and not failed.passed
    assert failed.reasons == ("mustInclude 'semver-policy' is not a skill id in the catalog",)


def test_unknown_suite_name_lists_the_available_ones(sample_ws_path: Path) -> None:
    with open_workspace(sample_ws_path) as ws, pytest.raises(InputError) as err:
        ws.suites.run("nope")
    assert str(err.value) == "workspace: no suite named 'nope' (available: ops-retrieval)"


def test_a_bad_suite_document_is_named(sample_ws_path: Path) -> None:
    with open_workspace(sample_ws_path) as ws:
        broken = {"name": "broken", "cases": [{"name": "x", "kind": "?"}]}
        store_of(ws).suites.save("broken", broken)
        with pytest.raises(InputError) as err:
            ws.suites.all()
    assert "workspace suite 'broken': suite 'broken': cases[0] (x): field 'kind'" in str(err.value)


def test_saved_suite_reads_back(tmp_path: Path) -> None:
    suite = Suite(
        "mine", (SuiteCase("c", "recall", ("tuesday",), must_include=("deploy-window",)),)
    )
    with init_workspace(tmp_path / "w.axmem") as ws:
        assert ws.suites.apply([SuiteChange("mine", None, suite)]) == {"mine": 1}
        assert ws.suites.apply([SuiteChange("mine", suite, suite)]) == {"mine": 2}
        assert ws.suites.all() == [suite]


def test_files_round_trip_and_run(tmp_path: Path) -> None:
    suites_path = tmp_path / "suites.json"
    write_suite_file(suites_path, sample_suites())
    assert read_suite_file(suites_path) == sample_suites()
    (outcome,) = run_suites(read_suite_file(suites_path), sample_catalog())
    assert outcome.result.all_passed
    junit = tmp_path / "out.xml"
    write_junit(junit, [outcome])
    assert junit.read_text(encoding="utf-8").startswith('<?xml version="1.0"')


def test_baseline_file_accepts_cli_envelope_and_bare_result(tmp_path: Path) -> None:
    (outcome,) = run_suites(sample_suites(), sample_catalog())
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(outcome.result.to_json()), encoding="utf-8")
    envelope = tmp_path / "env.json"
    envelope.write_text(json.dumps({"suites": [outcome.to_json()]}), encoding="utf-8")
    for path in (bare, envelope):
        runs = read_run_results_file(path)
        assert list(runs) == ["ops-retrieval"]
        assert len(runs["ops-retrieval"].cases) == len(outcome.result.cases)


def test_file_errors_are_input_errors_and_write_nothing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="suite file not found"):
        read_suite_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(InputError, match="not valid UTF-8"):
        read_suite_file(bad)
    (outcome,) = run_suites(
        [Suite("s", (SuiteCase("c", "discover", ("release",), must_include=("x",)),))],
        catalog_from_json_text('{"skills": []}'),
    )
    target = tmp_path / "no-such-dir" / "out.xml"
    with pytest.raises(InputError, match="no-such-dir: folder not found"):
        write_junit(target, [outcome])
    assert not target.parent.exists()


def test_progress_and_cancel() -> None:
    suites = sample_suites()
    seen: list[tuple[str, int, int]] = []
    (full,) = run_suites(suites, sample_catalog(), progress=lambda n, d, t: seen.append((n, d, t)))
    total = len(suites[0].cases)
    assert seen[-1] == ("ops-retrieval", total, total) and len(seen) == total
    calls = {"n": 0}

    def cancel_after_three() -> bool:
        calls["n"] += 1
        return calls["n"] > 4  # one check before the suite, one before each case

    (cut,) = run_suites(suites, sample_catalog(), cancelled=cancel_after_three)
    assert [c.name for c in cut.result.cases] == [c.name for c in full.result.cases[:3]]


def test_sample_suite_file_is_the_one_the_workspace_gets(sample_ws_path: Path) -> None:
    with open_workspace(sample_ws_path) as ws:
        assert ws.suites.all() == sample_suites()
        assert ws.catalog.snapshot().skills == sample_catalog().skills
    assert suites_from_json_text(json.dumps(sample_suites()[0].to_json())) == sample_suites()
