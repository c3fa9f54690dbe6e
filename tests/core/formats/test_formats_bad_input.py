"""Bad files on disk: every one gives a clear problem naming the file (and the skill)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from axmem_gui.core.formats import ReadLimits, read_source
from axmem_gui.core.formats.fileio import MIB

GOOD_SKILL = "---\nname: ok\ndescription: fine\n---\nbody\n"


def _errors(path: Path, **kw: object) -> list[str]:
    src = read_source(path, **kw)  # type: ignore[arg-type]
    return [str(p) for p in src.problems if p.severity == "error"]


def _skill(root: Path, name: str, text: str = GOOD_SKILL) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


def make_unreadable(path: Path) -> None:
    """A file whose read fails: no permission, or (as root, who ignores permissions) a
    link to a kernel file that refuses to be read."""
    if os.geteuid() != 0:
        path.write_text("{}", encoding="utf-8")
        path.chmod(0)
    else:
        path.symlink_to("/proc/self/mem")


def test_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"skills": []}\n["caf\xe9"]')
    assert _errors(path) == [f"{path}: not valid UTF-8 (byte offset 20, line 2)"]


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "image.json"
    path.write_bytes(b"\x00\x01\x02PNG")
    assert _errors(path) == [f"{path}: looks like a binary file (NUL byte at offset 0)"]


def test_utf16_file_is_reported_as_binary(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes("[]".encode("utf-16-le"))
    assert "binary" in _errors(path)[0]


def test_a_file_over_the_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as fh:  # sparse: takes no disk space
        fh.truncate(2048 * MIB)
    assert _errors(path) == [f"{path}: file is too large (2 GiB; the limit is 1 GiB)"]


def test_limits_are_settable(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("[]" + " " * 100, encoding="utf-8")
    assert "too large" in _errors(path, limits=ReadLimits(max_file_bytes=50))[0]


def test_missing_file_and_unknown_format(tmp_path: Path) -> None:
    assert _errors(tmp_path / "nope.json") == [
        f"{tmp_path / 'nope.json'}: not found (or a broken symlink)"
    ]
    odd = tmp_path / "catalog.yaml"
    odd.write_text("x", encoding="utf-8")
    assert "unknown catalog format" in _errors(odd)[0]


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.json"
    make_unreadable(path)
    errors = _errors(path)
    assert len(errors) == 1 and errors[0].startswith(f"{path}: ")
    assert "permission denied" in errors[0] or "cannot read" in errors[0]


def test_fifo_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    assert _errors(path) == [f"{path}: not a regular file: a named pipe"]


def test_symlink_loop_as_the_path(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.symlink_to(b)
    b.symlink_to(a)
    assert _errors(a) == [f"{a}: symlink loop (too many levels of symbolic links)"]


def _warnings(path: Path, **kw: object) -> list[str]:
    src = read_source(path, **kw)  # type: ignore[arg-type]
    return [str(p) for p in src.problems if p.severity == "warning"]


NOT_FOLLOWED = "skipped: a symlink (links in a skill folder are not followed)"


def test_symlink_loop_inside_a_skills_folder_is_not_followed(tmp_path: Path) -> None:
    skill = _skill(tmp_path / "skills", "looping")
    (skill / "scripts").mkdir()
    (skill / "scripts" / "back").symlink_to(skill)
    assert _errors(tmp_path / "skills") == []
    assert _warnings(tmp_path / "skills") == [
        f"{skill / 'scripts' / 'back'}: skill 'looping': {NOT_FOLLOWED}"
    ]


def test_symlink_between_skill_folders_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skill(root, "fine")
    (root / "group").mkdir()
    (root / "group" / "up").symlink_to(root)
    assert _errors(root) == []
    assert _warnings(root) == [f"{root / 'group' / 'up'}: {NOT_FOLLOWED}"]
    assert [s.id for s in read_source(root).doc.skills] == ["fine"]


def test_skill_md_problems_name_file_and_skill(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skill(root, "good")
    _skill(root, "plain", "# no frontmatter\n")
    _skill(root, "broken", "---\nname: x\ndescription: a: b\n---\n")
    latin = _skill(root, "latin")
    (latin / "SKILL.md").write_bytes(b"---\nname: caf\xe9\n---\n")
    unreadable = _skill(root, "locked")
    (unreadable / "SKILL.md").unlink()
    make_unreadable(unreadable / "SKILL.md")
    errors = _errors(root)
    assert errors[0] == (
        f"{root / 'broken' / 'SKILL.md'}: skill 'broken': frontmatter: malformed YAML "
        "(line 3, column 15: mapping values are not allowed here; put the value in quotes "
        "if it contains ': ')"
    )
    assert errors[1] == (
        f"{root / 'latin' / 'SKILL.md'}: skill 'latin': not valid UTF-8 (byte offset 13, line 2)"
    )
    assert errors[2].startswith(f"{root / 'locked' / 'SKILL.md'}: skill 'locked': ")
    assert errors[3].startswith(
        f"{root / 'plain' / 'SKILL.md'}: skill 'plain': no YAML frontmatter"
    )
    assert len(errors) == 4
    # The good skill is still read (the plan refuses to apply anything with errors).
    assert [s.id for s in read_source(root).doc.skills] == ["good"]


def test_oversized_and_special_resources(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "big")
    (skill / "assets").mkdir()
    with (skill / "assets" / "video.bin").open("wb") as fh:
        fh.truncate(50 * MIB)
    os.mkfifo(skill / "assets" / "pipe")
    (skill / "dangling").symlink_to(skill / "missing")
    limits = ReadLimits(max_file_bytes=16 * MIB)
    assert _errors(skill, limits=limits) == [
        f"{skill / 'assets' / 'video.bin'}: skill 'big': file is too large (50 MiB; the "
        "limit is 16 MiB)",
    ]
    assert _warnings(skill, limits=limits) == [
        f"{skill / 'dangling'}: skill 'big': {NOT_FOLLOWED}",
        f"{skill / 'assets' / 'pipe'}: skill 'big': skipped: a named pipe, not a regular "
        "file (not read)",
    ]


def test_total_size_limit_for_a_skills_folder(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "many")
    for i in range(5):
        (skill / f"f{i}.txt").write_bytes(b"x" * 100)
    errors = _errors(skill, limits=ReadLimits(max_total_bytes=300))
    assert errors and "exceed 300 bytes in total" in errors[0]


def test_duplicate_skill_ids_in_one_folder_tree(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skill(root / "team-a", "deploy")
    _skill(root / "team-b", "deploy")
    errors = _errors(root)
    assert errors == [
        f"{root / 'team-b' / 'deploy' / 'SKILL.md'}: skill 'deploy': field 'id' repeats the "
        f"skill id 'deploy' (first at {root / 'team-a' / 'deploy' / 'SKILL.md'}: skill 'deploy')"
    ]


def test_folder_without_skills(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("hi", encoding="utf-8")
    assert _errors(tmp_path) == [f"{tmp_path}: no SKILL.md found in this folder or below it"]


def test_hidden_folders_and_clutter_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill = _skill(root, "visible")
    _skill(root / ".git", "hidden")
    (skill / ".DS_Store").write_bytes(b"\x00\x01")
    (skill / "__pycache__").mkdir()
    (skill / "__pycache__" / "x.pyc").write_bytes(b"\x00")
    (skill / ".env.example").write_text("KEY=", encoding="utf-8")
    src = read_source(root)
    assert src.problems == ()
    assert [s.id for s in src.doc.skills] == ["visible"]
    # Dot-files that belong to the skill (not OS clutter) are kept.
    assert [r.path for r in src.doc.skills[0].resources] == [".env.example"]


@pytest.mark.parametrize("name", ["cat.json", "cat.ts", "mem.jsonl"])
def test_directory_named_like_a_file(tmp_path: Path, name: str) -> None:
    (tmp_path / name).mkdir()
    errors = _errors(tmp_path / name)
    assert errors == [f"{tmp_path / name}: no SKILL.md found in this folder or below it"]
