"""Issue: untrusted files. Every file the app takes goes through one reader (regular files
only, a size limit, depth and number limits checked before parsing) and every file it
makes through one writer (temp file, fsync, rename, the umask's mode). Hostile files end
in one clear line naming the file: no traceback, no hang, no MemoryError."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats.skillmd import SkillMdError, parse_skill_md
from axmem_gui.services.catalogs import read_catalog_file
from axmem_gui.services.contextmaps import read_snapshot_file
from axmem_gui.services.files import read_utf8_file, write_file_atomic
from axmem_gui.services.sessions import read_session_file
from axmem_gui.services.suites import read_suite_file
from axmem_gui.services.transfer import export_doc, import_paths
from axmem_gui.services.workspace import init_workspace
from tests.helpers.readonly import read_only_folder
from tests.helpers.session_docs import reparse

HUGE_INT = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


def _session(tmp_path: Path) -> dict[str, Any]:
    from importlib import resources

    folder = resources.files("axmem_gui") / "sample"
    name = next(p.name for p in folder.iterdir() if p.name.endswith(".axsession.json"))
    return dict(json.loads((folder / name).read_text(encoding="utf-8")))


def _cli(argv: list[str], capsys: Any) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    err = capsys.readouterr().err
    return code, err


def _one_clean_line(code: int, err: str, name: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert name in lines[0], err


# --- the reader -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        ('{"skillsCatalog": [], "memoriesCatalog": [{"id": "m", "content": "x", "n": '
         + HUGE_INT + "}]}", "more than 400 digits"),
        (DEEP, "nested more than 200 levels"),
        ('{"skillsCatalog": 1e999}', "out of range"),
    ],
    ids=["huge-int", "deep", "huge-float"],
)
def test_json_over_the_limits_is_one_clear_error_in_every_loader(
    tmp_path: Path, payload: str, words: str
) -> None:
    for name, reader in (
        ("catalog.json", read_catalog_file),
        ("run.axsession.json", read_session_file),
        ("snapshot.json", read_snapshot_file),
        ("suite.json", read_suite_file),
    ):
        path = tmp_path / name
        path.write_text(payload, encoding="utf-8")
        with pytest.raises(InputError) as info:
            reader(path)
        assert str(info.value).startswith(f"{path}: "), str(info.value)
        assert words in str(info.value)


@pytest.mark.parametrize(
    "argv",
    [
        ["render", "index", "--catalog", "{f}"],
        ["render", "memories", "--catalog", "{f}"],
        ["lint", "--catalog", "{f}"],
        ["search", "skills", "--catalog", "{f}", "q"],
        ["contextmap", "show", "{f}"],
        ["conformance", "run", "{f}"],
        ["simulate", "--catalog", "{f}", "{f}"],
        ["replay", "{f}"],
        ["diff", "{f}", "{f}"],
        ["whatif", "{f}"],
    ],
    ids=lambda a: "-".join(a[:2]),
)
@pytest.mark.parametrize("payload", [DEEP, "[" + HUGE_INT + "]"], ids=["deep", "huge-int"])
def test_cli_commands_refuse_hostile_json_in_one_line(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch, argv: list[str], payload: str
) -> None:
    monkeypatch.setenv("AXMEM_DATA_DIR", str(tmp_path / "data"))
    path = tmp_path / "hostile.json"
    path.write_text(payload, encoding="utf-8")
    code, err = _cli([a.replace("{f}", str(path)) for a in argv], capsys)
    assert code in (1, 2) and "Traceback" not in err
    assert "hostile.json" in err, err


def _in_thread(fn: Any) -> Any:
    """Run `fn` in a thread; a reader that blocks on a FIFO would never return."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the reader blocked"
    return box


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_odd_file_types_are_refused_without_reading(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        path = tmp_path / "pipe.json"
        os.mkfifo(path)
    elif kind == "dev-zero":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "folder.json"
        path.mkdir()
    for reader in (read_catalog_file, read_session_file, read_snapshot_file, read_suite_file):
        box = _in_thread(lambda reader=reader: reader(path))
        assert isinstance(box.get("error"), InputError), box
        assert str(path) in str(box["error"])


def test_fifo_as_cli_catalog_and_session(tmp_path: Path, capsys: Any) -> None:
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    for argv in (["render", "index", "--catalog", str(pipe)], ["replay", str(pipe)]):
        box = _in_thread(lambda argv=argv: main(argv))
        assert box.get("value") == 2, box
    err = capsys.readouterr().err
    assert "not a regular file" in err and "Traceback" not in err


def test_file_over_the_size_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as fh:
        fh.truncate(2048)
    with pytest.raises(InputError, match="too large"):
        read_utf8_file(path, "catalog file", max_bytes=1024)


def test_invalid_utf8_is_named_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"a":\n"\xff"}')
    with pytest.raises(InputError, match=r"not valid UTF-8 \(byte offset 7, line 2\)"):
        read_catalog_file(path)


def test_session_with_a_huge_token_count_is_refused(tmp_path: Path) -> None:
    doc = _session(tmp_path)
    doc["exchanges"][0]["usage"] = {"completion_tokens": 10**30}
    path = tmp_path / "big.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError, match="completion_tokens' must be at most"):
        read_session_file(path)


# --- SKILL.md frontmatter ------------------------------------------------------------


@pytest.mark.parametrize(
    "frontmatter",
    [
        "name: x\ndescription: " + "[" * 100_000 + "]" * 100_000,
        "name: x\ndescription: d\nm:\n" + "- " * 100_000 + "x",
        "name: x\ndescription: d\nm: {" + "a: {" * 20_000 + "}" * 20_001,
        "name: x\ndescription: d\nn: " + HUGE_INT,
    ],
    ids=["flow-100k", "block-100k", "mapping-20k", "huge-int"],
)
def test_hostile_frontmatter_fails_fast_with_a_message(frontmatter: str) -> None:
    with pytest.raises(SkillMdError) as info:
        parse_skill_md(f"---\n{frontmatter}\n---\nbody\n")
    assert "line " in info.value.message or "too large" in info.value.message


# --- the writer ----------------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_writer_gives_new_files_the_umask_mode_and_keeps_a_replaced_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.json"
        write_file_atomic(fresh, "{}", "export")
        assert _mode(fresh) == 0o644
        kept = tmp_path / "kept.json"
        kept.write_text("old")
        os.chmod(kept, 0o640)
        write_file_atomic(kept, "new", "export")
        assert _mode(kept) == 0o640 and kept.read_text() == "new"
    finally:
        os.umask(old)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "kept.json"]


def test_exports_and_session_files_are_not_private_by_accident(tmp_path: Path) -> None:
    from axmem_gui.core.formats import CatalogDoc
    from axmem_gui.services.sessions import write_session_file

    old = os.umask(0o022)
    try:
        export_doc(CatalogDoc(), "ax-json", tmp_path / "out.json")
        write_session_file(reparse(_session(tmp_path)), tmp_path / "s.axsession.json")
        replaced = tmp_path / "again.json"
        replaced.write_text("x")
        os.chmod(replaced, 0o644)
        export_doc(CatalogDoc(), "ax-json", replaced)
    finally:
        os.umask(old)
    assert _mode(tmp_path / "out.json") == 0o644
    assert _mode(tmp_path / "s.axsession.json") == 0o644
    assert _mode(replaced) == 0o644


def test_writer_leaves_nothing_behind_when_it_fails(tmp_path: Path) -> None:
    target = tmp_path / "out.json"

    class Boom(Exception):
        pass

    class Exploding(str):
        def encode(self, *args: Any, **kwargs: Any) -> bytes:
            raise Boom

    with pytest.raises(Boom):
        write_file_atomic(target, Exploding("x"), "export")
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only_folder(folder), pytest.raises(InputError, match="cannot write"):
        write_file_atomic(folder / "x.json", "{}", "export")
    assert [p.name for p in tmp_path.iterdir()] == ["ro"]
    assert list(folder.iterdir()) == []


def test_import_of_hostile_json_writes_nothing(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "w.axmem")
    try:
        path = tmp_path / "c.json"
        path.write_text(DEEP, encoding="utf-8")
        plan, result = import_paths(ws, [path], "overwrite")
        assert result is None and not plan.ok
        assert any("nested more than 200 levels" in str(e) for e in plan.errors)
    finally:
        ws.close()
