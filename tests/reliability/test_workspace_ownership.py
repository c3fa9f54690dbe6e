"""Issue: workspaces are only changed by the version that owns them. A newer user_version
or another program's migrations are refused untouched; refusing a file leaves nothing
beside it; a read-only copy with a pending WAL says so instead of showing a stale catalog;
a failed `init` leaves no NAME.creating."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import WorkspaceError
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from tests.helpers.readonly import read_only_folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _make_workspace(path: Path) -> None:
    with Workspace.open(path, create=True) as ws:
        ws.skills.upsert(Skill("a", "A", "d", "c"))


def test_newer_user_version_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.axmem"
    _make_workspace(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = _snapshot(tmp_path)
    with pytest.raises(WorkspaceError, match="newer version"):
        Workspace.open(path)
    assert _snapshot(tmp_path) == before
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
    conn.close()


def test_unknown_migration_set_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.axmem"
    _make_workspace(path)
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
        "VALUES ('someone-else', 'm001', '2030-01-01')"
    )
    conn.commit()
    conn.close()
    before = _snapshot(tmp_path)
    with pytest.raises(WorkspaceError, match="another program"):
        Workspace.open(path)
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["foreign-wal", "newer", "garbage"])
def test_refusing_a_file_leaves_nothing_beside_it(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "x.axmem"
    if kind == "garbage":
        path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    else:
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE t (x)")
        if kind == "newer":
            conn.execute("PRAGMA user_version = 99")
        conn.commit()
        conn.close()
    assert [p.name for p in tmp_path.iterdir()] == ["x.axmem"]
    with pytest.raises(WorkspaceError):
        Workspace.open(path)
    assert [p.name for p in tmp_path.iterdir()] == ["x.axmem"]


def test_fifo_as_workspace_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "pipe.axmem"
    os.mkfifo(path)
    box: dict[str, BaseException] = {}

    def run() -> None:
        try:
            Workspace.open(path)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive()
    assert isinstance(box.get("error"), WorkspaceError)


def test_read_only_copy_with_a_pending_wal_says_so(tmp_path: Path) -> None:
    source = tmp_path / "live.axmem"
    _make_workspace(source)
    writer = Workspace.open(source)
    writer.db.execute("PRAGMA wal_autocheckpoint = 0")
    writer.skills.upsert(Skill("b", "B", "d", "committed only in the WAL"))
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(source, copy / "live.axmem")
    shutil.copy(Path(str(source) + "-wal"), copy / "live.axmem-wal")
    writer.close()
    with read_only_folder(copy):
        try:
            ws = Workspace.open(copy / "live.axmem")
        except WorkspaceError as exc:
            assert "live.axmem-wal" in str(exc) and "read-only" in str(exc)
        else:  # only acceptable if it shows the current catalog
            with ws:
                assert ws.skills.count() == 2


def test_failed_init_leaves_no_creating_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(WorkspaceError, match="No space left"):
        init_workspace(tmp_path / "w.axmem", sample=True)
    assert list(tmp_path.iterdir()) == []


def test_init_refuses_a_fifo_in_the_way(tmp_path: Path) -> None:
    path = tmp_path / "w.axmem"
    os.mkfifo(path)
    with pytest.raises(WorkspaceError, match="already exists"):
        init_workspace(path)
    assert [p.name for p in tmp_path.iterdir()] == ["w.axmem"]


@pytest.mark.parametrize(
    ("table", "column", "value"),
    [
        ("skills", "tags", '["a",'),  # a byte flip inside stored JSON (AXMEM_FUZZ_SEED=1)
        ("skills", "tags", '["a\x01"]'),  # a control character in JSON text (seed 4)
        ("skills", "tags", "5"),
        ("skills", "extra", "[1]"),
        ("skills", "name", b"A"),  # a blob where text was stored
        ("memories", "content", b"\x00\xff"),
    ],
)
def test_a_damaged_stored_value_is_a_clear_error(
    tmp_path: Path, table: str, column: str, value: object
) -> None:
    """Damage inside a row that SQLite still reads (JSON that does not parse, a value of
    another type) raised JSONDecodeError or TypeError from `catalog()`."""
    path = tmp_path / "w.axmem"
    with Workspace.open(path, create=True) as ws:
        ws.skills.upsert(Skill("a", "A", "d", "c"))
        ws.memories.upsert(Memory("m", "content"))
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE {table} SET {column} = ?", (value,))
    conn.commit()
    conn.close()
    with (
        Workspace.open(path, read_only=True) as ws,
        pytest.raises(WorkspaceError, match="the workspace file is damaged"),
    ):
        ws.catalog()


def _varint(data: bytes | bytearray, at: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        byte = data[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    raise AssertionError("unreachable")


def test_closing_a_workspace_with_damaged_statistics_does_not_raise(tmp_path: Path) -> None:
    """Reduced from AXMEM_FUZZ_SEED=29 (one byte of 200 flips): a reserved serial type in
    a sqlite_stat1 record. The workspace opens and reads; `PRAGMA optimize` on closing
    met the damage, and the guarded cursor's WorkspaceError escaped `close()` (which only
    expected sqlite3.Error), so `with Workspace.open(...)` raised on the way out."""
    path = tmp_path / "w.axmem"
    init_workspace(path, sample=True).close()
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_stat1'")
    page_no = root.fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    page = (page_no - 1) * page_size
    assert data[page] == 0x0D  # a leaf page of the table
    cell = page + int.from_bytes(data[page + 8 : page + 10], "big")  # its first cell
    _, at = _varint(data, cell)  # payload size
    _, at = _varint(data, at)  # rowid
    _, at = _varint(data, at)  # record header size
    assert data[at] >= 13 and data[at] % 2  # the first column's serial type: text
    data[at] = 10  # a reserved serial type
    path.write_bytes(bytes(data))
    with Workspace.open(path) as ws:
        assert ws.catalog().skills
    with Workspace.open(path) as ws:  # and again: closing left it openable
        assert ws.catalog().skills


@pytest.mark.parametrize("read_only", [False, True])
def test_a_damaged_migrations_table_definition_is_refused_untouched(
    tmp_path: Path, read_only: bool
) -> None:
    """Reduced from AXMEM_FUZZ_SEED=55 and 60: a flipped byte in the column name
    `applied_at` of _sqlite_migrations gave sqlite-utils' KeyError on opening."""
    path = tmp_path / "w.axmem"
    _make_workspace(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET sql = replace(sql, 'applied_at', 'app\x1eied_at') "
        "WHERE name = '_sqlite_migrations'"
    )
    conn.commit()
    conn.close()
    before = _snapshot(tmp_path)
    with pytest.raises(WorkspaceError, match="damaged"):
        Workspace.open(path, read_only=read_only)
    assert _snapshot(tmp_path) == before
