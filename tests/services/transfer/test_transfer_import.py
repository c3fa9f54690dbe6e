"""Import use cases against a real workspace file: plan, policies, all or nothing, cancel,
progress, stale plans and undo."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import InputError, WorkspaceError
from axmem_gui.services.transfer import (
    ImportCancelled,
    Progress,
    apply_import,
    import_paths,
    plan_import,
    undo_import,
)
from axmem_gui.services.workspace import OpenWorkspace, init_workspace
from tests.helpers.store import raw


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[OpenWorkspace]:
    workspace = init_workspace(tmp_path / "w.axmem")
    with raw(workspace).transaction():
        raw(workspace).skills.upsert(Skill("deploy", "Deploy", "How to deploy", "old steps"))
        raw(workspace).memories.upsert(Memory("tz", "UTC"))
    yield workspace
    workspace.close()


def _write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _state(ws: OpenWorkspace) -> tuple[list[Skill], list[Memory], int]:
    return raw(ws).skills.all(), raw(ws).memories.all(), raw(ws).revisions.count()


def _catalog(tmp_path: Path, name: str, skill_ids: list[str]) -> Path:
    skills = [{"id": i, "name": i.title(), "content": f"{i} body"} for i in skill_ids]
    return _write_json(tmp_path / name, {"skillsCatalog": skills})


def test_plan_then_apply(ws: OpenWorkspace, tmp_path: Path) -> None:
    src = _write_json(
        tmp_path / "c.json",
        {
            "skillsCatalog": [
                {"id": "deploy", "name": "Deploy", "description": "new", "content": "new"},
                {"id": "review", "name": "Review", "content": "r", "tags": ["code"]},
            ],
            "memoriesCatalog": [{"id": "tz", "content": "UTC"}],
        },
    )
    before = _state(ws)
    plan = plan_import(ws, [src], "overwrite")
    assert _state(ws) == before  # planning writes nothing
    assert [(i.action, i.target_id) for i in plan.items] == [
        ("update", "deploy"),
        ("add", "review"),
        ("unchanged", "tz"),
    ]
    result = apply_import(ws, plan)
    assert raw(ws).skills.get("deploy") == Skill("deploy", "Deploy", "new", "new")
    assert raw(ws).skills.get("review") == Skill("review", "Review", "", "r", ("code",))
    assert [(c.kind, c.id, c.action) for c in result.changes] == [
        ("skill", "deploy", "update"),
        ("skill", "review", "add"),
    ]
    assert result.changes[0].before == Skill("deploy", "Deploy", "How to deploy", "old steps")
    assert result.changes[1].before is None
    # Every write of one import shares one batch id (one undo step in the history).
    assert {r.entry_id for r in raw(ws).revisions.batch(result.batch or "")} == {"deploy", "review"}


def test_error_in_third_of_five_files_writes_nothing(ws: OpenWorkspace, tmp_path: Path) -> None:
    files = [_catalog(tmp_path, f"f{i}.json", [f"s{i}a", f"s{i}b"]) for i in range(5)]
    _write_json(files[2], {"skillsCatalog": [{"id": "x", "name": 7, "content": ""}]})
    before = _state(ws)
    plan, result = import_paths(ws, files, "overwrite")
    assert result is None and not plan.ok
    assert [str(p) for p in plan.errors] == [
        f"{files[2]}: skillsCatalog[0] 'x': field 'name' must be a string, got a number"
    ]
    with pytest.raises(InputError, match="nothing was imported"):
        apply_import(ws, plan)
    assert _state(ws) == before


def test_every_bad_input_kind_blocks_the_whole_import(ws: OpenWorkspace, tmp_path: Path) -> None:
    good = _catalog(tmp_path, "good.json", ["fine"])
    bad_utf8 = tmp_path / "latin1.json"
    bad_utf8.write_bytes(b'[{"id": "caf\xe9"}]')
    dup = _write_json(
        tmp_path / "dup.json",
        [{"id": "d", "name": "1", "content": ""}, {"id": "d", "name": "2", "content": ""}],
    )
    no_frontmatter = tmp_path / "skills" / "plain"
    no_frontmatter.mkdir(parents=True)
    (no_frontmatter / "SKILL.md").write_text("# no frontmatter", encoding="utf-8")
    before = _state(ws)
    plan, result = import_paths(ws, [good, bad_utf8, dup, tmp_path / "skills"])
    assert result is None
    assert len(plan.errors) == 3
    assert _state(ws) == before


def test_policies_against_the_store(ws: OpenWorkspace, tmp_path: Path) -> None:
    src = _write_json(tmp_path / "c.json", [{"id": "deploy", "name": "Deploy 2", "content": "x"}])
    _, skipped = import_paths(ws, [src], "skip")
    assert skipped is not None and skipped.changes == ()
    assert raw(ws).skills.get("deploy") == Skill("deploy", "Deploy", "How to deploy", "old steps")
    _, kept = import_paths(ws, [src], "keep-both")
    assert kept is not None and [c.id for c in kept.changes] == ["deploy-2"]
    assert raw(ws).skills.get("deploy-2") == Skill("deploy-2", "Deploy 2", "", "x")
    _, again = import_paths(ws, [src], "keep-both")
    assert again is not None and [c.id for c in again.changes] == ["deploy-3"]
    _, over = import_paths(ws, [src], "overwrite")
    assert over is not None and raw(ws).skills.get("deploy") == Skill("deploy", "Deploy 2", "", "x")


def test_dry_run_writes_nothing(ws: OpenWorkspace, tmp_path: Path) -> None:
    src = _catalog(tmp_path, "c.json", ["a", "b"])
    before = _state(ws)
    plan, result = import_paths(ws, [src], dry_run=True)
    assert result is None and len(plan.adds) == 2
    assert _state(ws) == before


def test_cancel_during_apply_rolls_everything_back(ws: OpenWorkspace, tmp_path: Path) -> None:
    src = _catalog(tmp_path, "c.json", [f"s{i}" for i in range(10)])
    plan = plan_import(ws, [src])
    seen: list[Progress] = []
    stop = threading.Event()

    def progress(p: Progress) -> None:
        seen.append(p)
        if p.done == 4:
            stop.set()  # the user clicks Cancel half way

    before = _state(ws)
    with pytest.raises(ImportCancelled, match="nothing was changed"):
        apply_import(ws, plan, progress=progress, cancel=stop)
    assert _state(ws) == before
    assert [p.done for p in seen] == [0, 1, 2, 3, 4]
    assert all(p.total == 10 for p in seen)


def test_cancel_while_reading(ws: OpenWorkspace, tmp_path: Path) -> None:
    files = [_catalog(tmp_path, f"f{i}.json", [f"s{i}"]) for i in range(3)]
    calls = iter([False, True])
    with pytest.raises(ImportCancelled):
        plan_import(ws, files, cancel=lambda: next(calls))


def test_progress_reports_reading_and_writing(ws: OpenWorkspace, tmp_path: Path) -> None:
    files = [_catalog(tmp_path, f"f{i}.json", [f"s{i}"]) for i in range(2)]
    seen: list[Progress] = []
    import_paths(ws, files, progress=seen.append)
    reading = [p for p in seen if p.message.startswith("reading") or p.message == "read"]
    # Reading goes file by file, and within a file by its bytes, in thousandths per file.
    assert [(p.done, p.total) for p in reading] == [
        (0, 2000), (1000, 2000), (1000, 2000), (2000, 2000), (2000, 2000)
    ]
    size = files[0].stat().st_size
    assert seen[0].message == f"reading {files[0]}"
    assert seen[1].message == f"reading {files[0]}: {size} bytes of {size} bytes"
    writing = seen[len(reading) :]
    assert [(p.done, p.total) for p in writing] == [(0, 2), (1, 2), (2, 2)]
    assert seen[-1].message == "imported"


def test_stale_plan_is_refused(ws: OpenWorkspace, tmp_path: Path) -> None:
    src = _write_json(tmp_path / "c.json", [{"id": "deploy", "name": "D", "content": "x"}])
    plan = plan_import(ws, [src], "overwrite")
    raw(ws).skills.upsert(Skill("deploy", "Deploy", "edited in another window", "old steps"))
    before = _state(ws)
    with pytest.raises(WorkspaceError, match="changed since the import was planned"):
        apply_import(ws, plan)
    assert _state(ws) == before


def test_undo_restores_the_workspace(ws: OpenWorkspace, tmp_path: Path) -> None:
    src = _write_json(
        tmp_path / "c.json",
        {
            "skillsCatalog": [{"id": "deploy", "name": "D", "content": "x"}],
            "memoriesCatalog": [{"id": "new", "content": "n"}],
        },
    )
    skills_before, memories_before, _ = _state(ws)
    _, result = import_paths(ws, [src], "overwrite")
    assert result is not None and len(result.changes) == 2
    undo_import(ws, result)
    assert raw(ws).skills.all() == skills_before
    assert raw(ws).memories.all() == memories_before
