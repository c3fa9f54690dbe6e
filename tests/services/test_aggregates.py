"""One service per aggregate, on a real workspace file: each checks the revisions (or
values) its writer saw, writes all or nothing, and announces a write only once it has
committed. A second connection (another window, the CLI) plays the concurrent writer."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import ConflictError, InputError, WorkspaceError
from axmem_gui.core.lint.model import DEFAULT_BUDGET_TOKENS
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.scenarios import new_scenario_document
from axmem_gui.core.settings import LAST_PROVIDER_KEY, LINT_BUDGET_KEY, WorkspaceSettings
from axmem_gui.core.suites import Suite, SuiteCase
from axmem_gui.services.aggregates import Change
from axmem_gui.services.catalog import NOTICE_ID_LIMIT, Write
from axmem_gui.services.scenarios import ScenarioChange
from axmem_gui.services.suites import SuiteChange, SuiteConflictError, SuiteOutcome, run_suites
from axmem_gui.services.workspace import OpenWorkspace, init_workspace, open_workspace
from tests.evals.conftest import make_set
from tests.helpers.store import raw


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "w.axmem"
    init_workspace(p, sample=True).close()
    return p


@pytest.fixture
def ws(path: Path) -> Iterator[OpenWorkspace]:
    with open_workspace(path) as workspace:
        yield workspace


@pytest.fixture
def other(path: Path) -> Iterator[OpenWorkspace]:
    """A second connection to the same file: another window, program or instance."""
    with open_workspace(path) as workspace:
        yield workspace


@pytest.fixture
def heard(ws: OpenWorkspace) -> list[Change]:
    notices: list[Change] = []
    ws.notices.subscribe(notices.append)
    return notices


# --- catalog ---------------------------------------------------------------------------


def test_catalog_refuses_a_stale_revision_and_writes_nothing(
    ws: OpenWorkspace, other: OpenWorkspace, heard: list[Change]
) -> None:
    seen = ws.catalog.get("skills", "release-checklist")
    assert seen is not None and isinstance(seen.entry, Skill)
    other.catalog.edit("skills", replace(seen.entry, name="Theirs"), seen.revision)
    fresh = Memory("fresh", "new")
    with pytest.raises(ConflictError) as err:
        ws.catalog.write_many(
            [
                ("memories", Write("fresh", fresh, 0)),
                ("skills", Write(seen.entry.id, replace(seen.entry, name="Mine"), seen.revision)),
            ]
        )
    assert (err.value.expected, err.value.actual) == (seen.revision, seen.revision + 1)
    assert ws.catalog.get("memories", "fresh") is None  # the batch rolled back
    now = ws.catalog.get("skills", "release-checklist")
    assert now is not None and isinstance(now.entry, Skill) and now.entry.name == "Theirs"
    assert heard == []  # nothing committed, nothing announced


def test_catalog_announces_what_it_wrote_after_the_commit(
    ws: OpenWorkspace, heard: list[Change]
) -> None:
    during: list[bool] = []
    ws.notices.subscribe(lambda _c: during.append(raw(ws).db.conn.in_transaction))
    skill = ws.catalog.get("skills", "release-checklist")
    assert skill is not None and isinstance(skill.entry, Skill)
    ws.catalog.edit("skills", replace(skill.entry, description="edited"), skill.revision)
    ws.catalog.create("memories", Memory("m-new", "fact"))
    ws.catalog.rename("memories", "m-new", "m-renamed")
    ws.catalog.delete("memories", ["m-renamed"])
    assert heard == [
        Change("skills", ("release-checklist",), False),
        Change("memories", ("m-new",), True),
        Change("memories", ("m-new", "m-renamed"), True),
        Change("memories", ("m-renamed",), True),
    ]
    assert during == [False] * 4


def test_a_bulk_write_is_announced_without_its_ids(ws: OpenWorkspace, heard: list[Change]) -> None:
    memories = [Memory(f"bulk-{i}", "x") for i in range(NOTICE_ID_LIMIT + 1)]
    ws.catalog.write("memories", [Write(m.id, m, 0) for m in memories])
    assert heard == [Change("memories", (), True)]  # the views re-read rather than patch


def test_catalog_pages_are_plain_rows_parsed_where_shown(ws: OpenWorkspace) -> None:
    table = ws.catalog.table("skills")
    total = table.count()
    rows, cursor = table.page_after(None, 5, order_by="id")
    ids = [row[2] for row in rows]
    assert ids == sorted(ids) and cursor is not None
    assert all(type(row) is tuple for row in rows)  # exact tuples: untracked by the collector
    more, _ = table.page_after(cursor, 5, order_by="id")
    assert more[0][2] > ids[-1]
    parsed = table.parse(rows[0])
    stored = ws.catalog.get("skills", ids[0])
    assert stored is not None and parsed == stored
    found = table.row(ids[0])
    assert found is not None and found[2:] == rows[0][2:]  # (its sort key: its pk)
    assert table.count("release") < total


def test_catalog_reader_reads_on_its_own_thread(ws: OpenWorkspace) -> None:
    reader = ws.catalog.reader()
    out: dict[str, object] = {}

    def job() -> None:
        out["catalog"] = reader.read()
        out["entries"] = reader.entries("skills", ["release-checklist", "missing"])

    worker = threading.Thread(target=job)
    worker.start()
    worker.join()
    assert out["catalog"] == ws.catalog.snapshot()
    entries = out["entries"]
    assert isinstance(entries, dict) and entries["missing"] is None
    assert isinstance(entries["release-checklist"], Skill)


def test_history_follows_renames_as_typed_entries(ws: OpenWorkspace) -> None:
    ws.catalog.create("skills", Skill("a", "A"))
    ws.catalog.rename("skills", "a", "b")
    found = ws.catalog.get("skills", "b")
    assert found is not None and isinstance(found.entry, Skill)
    ws.catalog.edit("skills", replace(found.entry, name="B"), found.revision)
    lineage = ws.catalog.lineage("skills", "b")
    assert [(r.entry_id, r.op) for r in lineage] == [
        ("a", "create"),
        ("b", "rename"),
        ("b", "update"),
    ]
    assert lineage[0].after == Skill("a", "A") and lineage[-1].value == Skill("b", "B")


# --- scenarios -------------------------------------------------------------------------


def test_scenarios_check_what_the_writer_saw_and_write_all_or_nothing(
    ws: OpenWorkspace, other: OpenWorkspace, heard: list[Change]
) -> None:
    found = ws.scenarios.get("Ship 2.4.0")
    assert found is not None and found.document.scenario is not None
    theirs = found.document.with_scenario(replace(found.document.scenario, task="theirs"))
    other.scenarios.apply([ScenarioChange("Ship 2.4.0", found.document, theirs)])
    mine = found.document.with_scenario(replace(found.document.scenario, task="mine"))
    draft = new_scenario_document("Draft")
    with pytest.raises(ConflictError, match="was changed elsewhere"):
        ws.scenarios.apply(
            [
                ScenarioChange("Draft", None, draft),
                ScenarioChange("Ship 2.4.0", found.document, mine),
            ]
        )
    assert ws.scenarios.get("Draft") is None
    assert ws.scenarios.load("Ship 2.4.0").task == "theirs"
    with pytest.raises(ConflictError, match="revision"):
        ws.scenarios.apply([ScenarioChange("Ship 2.4.0", theirs, mine, found.revision)])
    assert heard == []
    now = ws.scenarios.get("Ship 2.4.0")
    assert now is not None
    revisions = ws.scenarios.apply([ScenarioChange("Ship 2.4.0", theirs, mine, now.revision)])
    assert revisions == {"Ship 2.4.0": now.revision + 1}
    assert heard == [Change("scenarios", ("Ship 2.4.0",), False)]


# --- suites and their runs -------------------------------------------------------------

CASE = SuiteCase("c", "recall", ("tuesday",), must_include=("deploy-window",))


def test_suites_refuse_a_stale_revision(
    ws: OpenWorkspace, other: OpenWorkspace, heard: list[Change]
) -> None:
    _suite, revision = ws.suites.require("ops-retrieval")
    other.suites.apply(other.suites.case_changes("ops-retrieval", CASE))
    with pytest.raises(SuiteConflictError) as err:
        ws.suites.apply(ws.suites.remove_changes("ops-retrieval", revision))
    assert isinstance(err.value, ConflictError) and err.value.expected == revision
    assert ws.suites.read("ops-retrieval") is not None
    assert heard == []
    with pytest.raises(InputError, match="already exists"):
        ws.suites.new_changes(Suite("ops-retrieval", ()))
    ws.suites.apply([SuiteChange("mine", None, Suite("mine", (CASE,)), 0)])
    assert heard == [Change("suites", ("mine",), True)]


def test_suite_runs_are_recorded_together_and_announced(
    ws: OpenWorkspace, heard: list[Change], path: Path
) -> None:
    outcomes = run_suites(ws.suites.all(), ws.catalog.snapshot())
    refused = SuiteOutcome(replace(outcomes[0].result, suite="refused"), None)
    # The second run cannot be stored (as a full disk would refuse it): neither is kept.
    raw(ws).db.execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON suite_runs "
        "WHEN NEW.suite_name = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )
    with pytest.raises(WorkspaceError):
        ws.suites.record_runs([*outcomes, refused])
    assert ws.suites.previous_run("ops-retrieval") is None
    assert heard == []
    ws.suites.record_runs(outcomes)
    recorded = ws.suites.previous_run("ops-retrieval")
    assert recorded is not None
    assert [c.name for c in recorded.cases] == [c.name for c in outcomes[0].result.cases]
    assert heard == [Change("suites", ("ops-retrieval",), False)]
    with open_workspace(path, read_only=True) as read_only:
        read_only.suites.record_runs(outcomes)  # kept nowhere, and no error


# --- evals -----------------------------------------------------------------------------


def test_eval_sets_check_revisions_and_add_all_or_none(
    ws: OpenWorkspace, other: OpenWorkspace, heard: list[Change]
) -> None:
    eval_set = make_set(agent="ops-assistant")
    ws.evals.save_set(eval_set, 0)
    revision = ws.evals.revision_of(eval_set.name)
    other.evals.save_set(replace(eval_set, description="theirs"), revision)
    with pytest.raises(ConflictError):
        ws.evals.save_set(replace(eval_set, description="mine"), revision)
    with pytest.raises(ConflictError):
        ws.evals.remove_set(eval_set.name, revision)
    another = make_set(name="another", agent="ops-assistant")
    with pytest.raises(InputError, match="already exists"):
        ws.evals.add_sets([another, eval_set], replace_existing=False)
    assert ws.evals.revision_of("another") is None  # none of the file's sets was added
    assert ws.evals.get_set(eval_set.name).description == "theirs"
    assert [c.what for c in heard] == ["evals"]  # only the first save was announced
    ws.evals.add_sets([another, eval_set], replace_existing=True)
    assert heard[-1] == Change("evals", ("another", eval_set.name), True)


def _case_names(ws: OpenWorkspace) -> list[str]:
    return [c.name for c in ws.evals.get_set("ops-triggers").cases]


def test_moving_a_case_is_one_revision_checked_write_and_moving_back_undoes_it(
    ws: OpenWorkspace, other: OpenWorkspace, heard: list[Change]
) -> None:
    first, second, third = _case_names(ws)
    before, revision = ws.evals.set_and_revision("ops-triggers")
    moved = ws.evals.move_case("ops-triggers", third, 0, revision)
    assert moved == revision + 1
    assert _case_names(ws) == [third, first, second]
    assert heard == [Change("evals", ("ops-triggers",), False)]
    after = ws.evals.get_set("ops-triggers")
    assert after.cases[0] == before.cases[2] and after.agent == before.agent  # only the order
    assert ws.evals.move_case("ops-triggers", third, 0, moved) == moved  # already there
    assert len(heard) == 1  # nothing written, nothing announced
    assert ws.evals.move_case("ops-triggers", third, 2, moved) == moved + 1
    assert ws.evals.get_set("ops-triggers") == before
    # Another program changed the set since: refused, the stored order stays.
    other.evals.move_case("ops-triggers", first, 1)
    with pytest.raises(ConflictError, match=f"case '{third}' was not moved"):
        ws.evals.move_case("ops-triggers", third, 0, moved + 1)
    assert _case_names(ws) == [second, first, third]
    with pytest.raises(InputError, match="has no case 'nope'"):
        ws.evals.move_case("ops-triggers", "nope", 0)
    with pytest.raises(InputError, match=r"cannot move case .* to position 4; the set has 3"):
        ws.evals.move_case("ops-triggers", first, 3)
    assert len(heard) == 2


# --- settings --------------------------------------------------------------------------


def test_settings_read_typed_with_odd_values_as_defaults(
    ws: OpenWorkspace, heard: list[Change]
) -> None:
    assert ws.settings.read() == WorkspaceSettings(DEFAULT_BUDGET_TOKENS, None)
    raw(ws).settings.set(LINT_BUDGET_KEY, "lots")
    raw(ws).settings.set(LAST_PROVIDER_KEY, {"name": "openai", "structured_output": "??"})
    assert ws.settings.read() == WorkspaceSettings(DEFAULT_BUDGET_TOKENS, None)
    assert ws.settings.set_lint_budget(10) == 50  # clamped to its range
    provider = ProviderSettings("ollama", "llama3")
    ws.settings.set_last_provider(provider)
    assert ws.settings.read() == WorkspaceSettings(50, provider)
    assert raw(ws).settings.get(LAST_PROVIDER_KEY) == provider.to_json()  # never a key
    ws.settings.set_last_provider(provider)  # the same again: nothing written
    assert heard == [
        Change("settings", (LINT_BUDGET_KEY,), False),
        Change("settings", (LAST_PROVIDER_KEY,), False),
    ]


def test_a_read_only_workspace_refuses_every_write(path: Path) -> None:
    with open_workspace(path, read_only=True) as ws:
        heard: list[Change] = []
        ws.notices.subscribe(heard.append)
        writes = (
            lambda: ws.settings.set_lint_budget(900),
            lambda: ws.catalog.create("skills", Skill("x", "X")),
            lambda: ws.scenarios.apply([ScenarioChange("x", None, new_scenario_document("x"))]),
            lambda: ws.suites.apply([SuiteChange("x", None, Suite("x", (CASE,)))]),
            lambda: ws.evals.save_set(make_set(agent="ops-assistant")),
        )
        for write in writes:
            with pytest.raises(WorkspaceError, match="read-only"):
                write()
        assert heard == []
