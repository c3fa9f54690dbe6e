"""Issue: a skills folder from the internet must not steal secrets. Nothing outside the
folder is read: symlinks (to files, folders, `../..`, /proc), hard links to outside files,
FIFOs, sockets and devices are skipped, and the import plan says so for each. Names that
are not valid UTF-8 are a clear problem, in the dry run and the import alike."""

from __future__ import annotations

import base64
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.formats import read_source
from axmem_gui.services.transfer import export_workspace, import_paths
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace

SECRET = b"AXMEM_PLANTED_KEY=sk-live-1234567890"
GOOD_SKILL = "---\nname: helper\ndescription: helps\n---\nUse the scripts.\n"


def _skill(root: Path, name: str = "helper") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(GOOD_SKILL, encoding="utf-8")
    (folder / "notes.txt").write_text("ordinary resource", encoding="utf-8")
    return folder


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".ssh" / "id_ed25519"
    path.parent.mkdir(parents=True)
    path.write_bytes(SECRET)
    return path


def _workspace_bytes(ws_path: Path) -> bytes:
    out = b""
    for suffix in ("", "-wal"):
        p = Path(str(ws_path) + suffix)
        if p.exists():
            out += p.read_bytes()
    return out


def _assert_secret_absent(blob: bytes) -> None:
    assert SECRET not in blob
    assert base64.b64encode(SECRET)[:24] not in blob


def _import_and_export(tmp_path: Path, source: Path) -> tuple[Any, bytes]:
    ws_path = tmp_path / "w.axmem"
    ws = init_workspace(ws_path)
    try:
        plan, result = import_paths(ws, [source], "overwrite")
        assert result is not None, [str(p) for p in plan.errors]
        out = tmp_path / "export"
        export_workspace(ws, "skills-dir", out)
        exported = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    finally:
        ws.close()
    return plan, _workspace_bytes(ws_path) + exported


@pytest.mark.parametrize(
    "link",
    ["file", "folder", "dotdot", "proc-environ", "relative-up"],
)
def test_symlinks_in_a_skill_folder_are_not_followed(
    tmp_path: Path, secret_file: Path, link: str
) -> None:
    root = tmp_path / "download"
    skill = _skill(root)
    target: Path | str = {
        "file": secret_file,
        "folder": secret_file.parent,
        "dotdot": Path("../.."),
        "proc-environ": Path("/proc/self/environ"),
        "relative-up": Path("../../home/.ssh/id_ed25519"),
    }[link]
    (skill / "key.txt").symlink_to(target)
    os.environ["AXMEM_PLANTED_KEY"] = "sk-live-1234567890"
    try:
        plan, blob = _import_and_export(tmp_path, root)
    finally:
        del os.environ["AXMEM_PLANTED_KEY"]
    _assert_secret_absent(blob)
    assert b"ordinary resource" in blob  # the rest of the skill is imported
    warnings = [str(w) for w in plan.warnings]
    assert any("key.txt" in w and "symlink" in w and "not followed" in w for w in warnings)


def test_a_symlinked_skill_folder_is_not_followed(tmp_path: Path) -> None:
    outside = _skill(tmp_path / "elsewhere", "private")
    (outside / "SKILL.md").write_text(
        "---\nname: private\ndescription: x\n---\n" + SECRET.decode(), encoding="utf-8"
    )
    root = tmp_path / "download"
    _skill(root)
    (root / "private").symlink_to(outside)
    src = read_source(root)
    assert [s.id for s in src.doc.skills] == ["helper"]
    assert any("private" in str(p) and "not followed" in str(p) for p in src.problems)


def test_skill_md_that_is_a_symlink_is_refused(tmp_path: Path, secret_file: Path) -> None:
    root = tmp_path / "download"
    skill = root / "thief"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").symlink_to(secret_file)
    src = read_source(root)
    assert not src.doc.skills
    assert any("SKILL.md" in str(p) and "symlink" in str(p) for p in src.problems)


def test_hard_link_to_an_outside_file_is_not_read(tmp_path: Path, secret_file: Path) -> None:
    root = tmp_path / "download"
    skill = _skill(root)
    os.link(secret_file, skill / "copy.txt")
    (skill / "inner.txt").write_text("twice", encoding="utf-8")
    os.link(skill / "inner.txt", skill / "inner-again.txt")  # both names inside: fine
    plan, blob = _import_and_export(tmp_path, root)
    _assert_secret_absent(blob)
    assert blob.count(b"twice") >= 2
    assert any("copy.txt" in str(w) and "hard link" in str(w) for w in plan.warnings)


def test_fifo_socket_and_device_are_listed_and_not_read(tmp_path: Path) -> None:
    root = tmp_path / "download"
    skill = _skill(root)
    os.mkfifo(skill / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(skill / "sock"))
        src = read_source(root)
    finally:
        sock.close()
    problems = [str(p) for p in src.problems]
    assert any("pipe" in p and "named pipe" in p and "not read" in p for p in problems)
    assert any("sock" in p and "socket" in p and "not read" in p for p in problems)
    assert [s.id for s in src.doc.skills] == ["helper"]
    assert [r.path for r in src.doc.skills[0].resources] == ["notes.txt"]


def test_non_utf8_skill_folder_name_is_a_problem_in_dry_run_and_import(
    tmp_path: Path, capsys: Any
) -> None:
    root = tmp_path / "download"
    root.mkdir()
    bad = os.path.join(os.fsencode(root), b"caf\xe9")
    os.mkdir(bad)
    with open(os.path.join(bad, b"SKILL.md"), "w", encoding="utf-8") as fh:
        fh.write(GOOD_SKILL)
    ws_path = tmp_path / "w.axmem"
    init_workspace(ws_path).close()
    codes = []
    for extra in (["--dry-run"], []):
        codes.append(main(["import", "-w", str(ws_path), *extra, str(root)]))
    captured = capsys.readouterr()
    assert codes == [codes[0], codes[0]] and codes[0] != 0
    assert "Traceback" not in captured.err
    assert captured.err.count("not valid UTF-8") == 2, captured.err
    assert "caf\\xe9" in captured.err  # shown escaped, never as raw bytes
    with Workspace.open(ws_path) as ws:
        assert ws.skills.count() == 0
