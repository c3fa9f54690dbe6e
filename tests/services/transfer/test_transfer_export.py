"""Export use cases and the `axmem import` / `axmem export` commands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import FormatName, read_source
from axmem_gui.services.transfer import (
    STORE_KEEPS_SKILL_EXTRA,
    export_workspace,
    import_paths,
    workspace_doc,
)
from axmem_gui.services.workspace import OpenWorkspace, init_workspace
from axmem_gui.store import Workspace
from tests.helpers.cli import run_cli
from tests.helpers.store import raw

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "skills"
SKILLS = [
    Skill(" padded id ", "Padded", "keeps its spaces", "body\r\nwith CRLF\n", ("a", "b, c")),
    Skill("Deploy", "Deploy", "", "😀 astral"),
    Skill("deploy", "deploy (lower case)", "differs only by case", "x"),
    Skill("a/b", "Slash", "not a folder name", ""),
]
MEMORIES = [Memory("mem:1", "line\u2028separator", ("t",)), Memory("m2", "")]


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[OpenWorkspace]:
    workspace = init_workspace(tmp_path / "w.axmem")
    with raw(workspace).transaction():
        for s in SKILLS:
            raw(workspace).skills.upsert(s)
        for m in MEMORIES:
            raw(workspace).memories.upsert(m)
    yield workspace
    workspace.close()


@pytest.mark.parametrize(
    ("fmt", "name"), [("ax-json", "c.json"), ("ts", "c.ts"), ("skills-dir", "out")]
)
def test_export_then_reimport_is_unchanged(
    ws: OpenWorkspace, tmp_path: Path, fmt: FormatName, name: str
) -> None:
    out = tmp_path / name
    result = export_workspace(ws, fmt, out)
    assert result.warnings == ()
    assert (result.skills, result.memories) == (4, 2)
    src = read_source(out)
    assert src.problems == ()
    by_id = {s.id: s.skill for s in src.doc.skills}
    assert by_id == {s.id: s for s in SKILLS}
    assert src.doc.memories == tuple(MEMORIES)
    plan, applied = import_paths(ws, [out], "overwrite")
    assert applied is not None and applied.changes == ()
    assert len(plan.unchanged) == 6


def test_skills_dir_uses_safe_folder_names(ws: OpenWorkspace, tmp_path: Path) -> None:
    export_workspace(ws, "skills-dir", tmp_path / "out")
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    # Only "deploy" follows the Agent Skills naming rule and keeps its name; "Deploy"
    # (uppercase) would clash with it on case-insensitive disks anyway.
    assert names == ["a-b", "deploy", "deploy-2", "memories.jsonl", "padded-id"]
    assert "ax-id: a/b" in (tmp_path / "out" / "a-b" / "SKILL.md").read_text(encoding="utf-8")
    assert "ax-id: Deploy" in (tmp_path / "out" / "deploy-2" / "SKILL.md").read_text("utf-8")


def test_jsonl_export_warns_about_skills(ws: OpenWorkspace, tmp_path: Path) -> None:
    result = export_workspace(ws, "jsonl", tmp_path / "m.jsonl")
    assert result.warnings == ("4 skill(s) not exported: JSON Lines files hold memories only",)
    assert read_source(tmp_path / "m.jsonl").doc.memories == tuple(MEMORIES)


def test_skills_dir_export_refuses_to_clobber_without_force(
    ws: OpenWorkspace, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    (out / "deploy").mkdir(parents=True)
    (out / "deploy" / "SKILL.md").write_text("mine", encoding="utf-8")
    (out / "README.md").write_text("keep me", encoding="utf-8")
    with pytest.raises(InputError, match="already holds deploy"):
        export_workspace(ws, "skills-dir", out)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "deploy"]
    assert (out / "deploy" / "SKILL.md").read_text(encoding="utf-8") == "mine"
    export_workspace(ws, "skills-dir", out, force=True)
    assert (out / "README.md").read_text(encoding="utf-8") == "keep me"
    assert (out / "deploy" / "SKILL.md").read_text(encoding="utf-8").startswith("---\nname: deploy")
    assert not [p for p in out.iterdir() if p.name.startswith(".axmem-export")]


def test_export_to_missing_folder_is_a_clear_error(ws: OpenWorkspace, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="folder not found"):
        export_workspace(ws, "ax-json", tmp_path / "no" / "such" / "c.json")


def test_skill_folders_round_trip_through_the_workspace(tmp_path: Path) -> None:
    with init_workspace(tmp_path / "w.axmem") as ws:
        plan, result = import_paths(ws, [FIXTURES])
        assert plan.ok and result is not None and len(result.changes) == 4
        out = tmp_path / "out"
        export_workspace(ws, "skills-dir", out)
        exported = read_source(out)
        fixture = read_source(FIXTURES)
        assert {s.id: s.skill for s in exported.doc.skills} == {
            s.id: s.skill for s in fixture.doc.skills
        }
        if STORE_KEEPS_SKILL_EXTRA:
            # Frontmatter keys, resource files and layout come back byte for byte.
            for path in FIXTURES.rglob("*"):
                if path.is_file() and not path.name.startswith("."):
                    rel = path.relative_to(FIXTURES)
                    assert (out / rel).read_bytes() == path.read_bytes(), rel
        else:
            # Without Skill.extra the workspace keeps Ax's fields and tags only.
            assert all(not s.has_extra for s in workspace_doc(ws).skills)


# --- CLI ------------------------------------------------------------------------------------


def test_cli_import_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = tmp_path / "w.axmem"
    init_workspace(w).close()
    src = tmp_path / "c.json"
    src.write_text(json.dumps([{"id": "a", "name": "A", "content": "x"}]), encoding="utf-8")
    code, out, _ = run_cli(capsys, "import", str(src), "--workspace", str(w), "--dry-run")
    assert code == 0 and "would import: 1 added" in out
    with Workspace.open(w) as ws:
        assert raw(ws).skills.count() == 0
    code, out, _ = run_cli(capsys, "import", str(src), "-w", str(w), "--json")
    assert code == 0 and json.loads(out)["changes"] == [
        {"kind": "skill", "id": "a", "action": "add"}
    ]
    code, out, _ = run_cli(capsys, "export", "-w", str(w), "--format", "ts", "-")
    assert code == 0 and 'id: "a",' in out
    code, out, _ = run_cli(
        capsys, "export", "-w", str(w), "--format", "jsonl", str(tmp_path / "m.jsonl")
    )
    assert code == 0 and "exported 0 skill(s) and 0 memory(ies)" in out


def test_cli_bad_input_exits_2_and_names_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = tmp_path / "w.axmem"
    init_workspace(w).close()
    bad = tmp_path / "bad.json"
    bad.write_text('{"skillsCatalog": [{"id": "x"}]}', encoding="utf-8")
    code, _, err = run_cli(capsys, "import", str(bad), "-w", str(w))
    assert code == 2
    assert "nothing was imported" in err
    assert f"{bad}: skillsCatalog[0] 'x': field 'name' is missing" in err
