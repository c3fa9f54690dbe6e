from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import ConflictError, ReadOnlyError, WorkspaceError
from axmem_gui.store import Workspace
from tests.helpers.readonly import read_only_folder


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    w = Workspace.open(tmp_path / "t.axmem", create=True)
    yield w
    w.close()


def test_new_workspace_has_wal_foreign_keys_and_version(ws: Workspace) -> None:
    assert ws.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert ws.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert ws.schema_version == ws.db.execute("PRAGMA user_version").fetchone()[0] >= 3
    assert ws.counts().skills == 0


def test_skill_crud_keeps_full_history(ws: Workspace) -> None:
    ws.skills.upsert(Skill("deploy", "Deploy", "How to deploy", "Step 1", ("ops",)))
    ws.skills.upsert(Skill("deploy", "Deploy", "How to deploy", "Step 1\nStep 2", ("ops",)))
    assert ws.skills.get("deploy") == Skill(
        "deploy", "Deploy", "How to deploy", "Step 1\nStep 2", ("ops",)
    )
    history = ws.skills.history("deploy")
    assert [h.op for h in history] == ["create", "update"]
    assert history[1].before is not None and history[1].before.content == "Step 1"
    assert history[1].after is not None and history[1].after.content == "Step 1\nStep 2"
    assert ws.skills.delete("deploy")
    assert ws.skills.get("deploy") is None
    last = ws.skills.history("deploy")[-1]
    assert last.op == "delete" and last.after is None
    ws.skills.restore(last)
    assert ws.skills.get("deploy") == Skill(
        "deploy", "Deploy", "How to deploy", "Step 1\nStep 2", ("ops",)
    )


def test_unchanged_upsert_does_not_bump_revision(ws: Workspace) -> None:
    m = Memory("user-prefs", "Prefers metric units.")
    assert ws.memories.upsert(m) == 1
    assert ws.memories.upsert(m) == 1
    assert len(ws.memories.history("user-prefs")) == 1


def test_strings_are_stored_verbatim(ws: Workspace) -> None:
    s = Skill(" spaced ", "  Name\t", "", "body\r\nwith 🚀 and \x00 nul\n\n\n", ())
    ws.skills.upsert(s)
    assert ws.skills.all() == [s]


def test_revision_conflict_is_refused(ws: Workspace) -> None:
    ws.skills.upsert(Skill("a", "A", "", "x"))
    ws.skills.upsert(Skill("a", "A", "", "y"), expected_revision=1)
    with pytest.raises(ConflictError, match="revision 1"):
        ws.skills.upsert(Skill("a", "A", "", "z"), expected_revision=1)
    assert ws.skills.get("a") == Skill("a", "A", "", "y")
    with pytest.raises(ConflictError):
        ws.skills.upsert(Skill("a", "A", "", "new"), expected_revision=0)


def test_transaction_is_all_or_nothing(ws: Workspace) -> None:
    with pytest.raises(RuntimeError), ws.transaction():
        ws.skills.upsert(Skill("a", "A", "", "x"))
        ws.memories.upsert(Memory("m", "y"))
        raise RuntimeError("boom")
    assert ws.counts().skills == 0 and ws.counts().memories == 0
    assert ws.revisions.count() == 0


def test_rename_moves_entry(ws: Workspace) -> None:
    ws.skills.upsert(Skill("old", "Old", "", "x"))
    ws.skills.rename("old", "new")
    assert ws.skills.ids() == ["new"]
    assert ws.skills.history("new")[-1].op == "rename"


def test_paging_and_filter(ws: Workspace) -> None:
    with ws.transaction():
        for i in range(50):
            ws.memories.upsert(Memory(f"m{i:02d}", "even" if i % 2 == 0 else "odd"))
    assert ws.memories.count_filtered("even") == 25
    page = ws.memories.page(10, 5, order_by="id desc")
    assert [m.id for m, _ in page] == ["m39", "m38", "m37", "m36", "m35"]
    assert ws.memories.count_filtered("100%") == 0


@pytest.mark.parametrize("order", ["pk", "id", "id desc", "content", "content desc"])
@pytest.mark.parametrize("text_filter", ["", "even", "1"])
def test_keyset_pages_walk_exactly_what_offset_pages_do(
    ws: Workspace, order: str, text_filter: str
) -> None:
    with ws.transaction():
        for i in range(53):
            # repeated content values: ties broken by pk, on both sides of a page edge
            ws.memories.upsert(Memory(f"m{(i * 37) % 53:02d}", "even" if i % 2 == 0 else "odd"))
    expected = [m.id for m, _ in ws.memories.page(0, 100, text_filter=text_filter, order_by=order)]
    walked: list[str] = []
    cursor = None
    while True:
        page, cursor = ws.memories.page_after(cursor, 7, text_filter=text_filter, order_by=order)
        walked += [m.id for m, _ in page]
        if len(page) < 7:
            break
    assert walked == expected
    assert len(walked) == ws.memories.count_filtered(text_filter)
    with pytest.raises(ValueError, match="cannot order by"):
        ws.memories.page_after(None, 5, order_by="content; drop table memories")


def test_sessions_round_trip_with_exchanges(ws: Workspace) -> None:
    doc = {
        "id": "s1",
        "name": "first",
        "status": "complete",
        "provider": {"name": "openai-compatible", "model": "m"},
        "exchanges": [
            {"stage": "actor.distiller", "digest": "d0", "usage": {"prompt_tokens": 10}},
            {"stage": "responder", "digest": "d1"},
        ],
    }
    ws.sessions.save(doc)
    assert ws.sessions.get("s1") == doc
    (summary,) = ws.sessions.list()
    assert (summary.model, summary.exchanges) == ("m", 2)
    ws.contextmaps.add("ops", {"text": "x"}, session_id="s1", label="after")
    assert ws.sessions.delete("s1")
    assert ws.db.execute("SELECT count(*) FROM session_exchanges").fetchone()[0] == 0
    (snap,) = ws.contextmaps.list("ops")
    assert snap.session_id is None  # ON DELETE SET NULL: the map history survives


def test_documents_and_settings(ws: Workspace) -> None:
    ws.scenarios.save("ship", {"name": "ship", "task": "release"})
    assert ws.scenarios.get("ship") == {"name": "ship", "task": "release"}
    assert ws.scenarios.list() == ["ship"]
    ws.settings.set("lint.budget", 1500)
    assert ws.settings.get("lint.budget") == 1500
    assert ws.settings.get("missing", 7) == 7


def test_data_version_sees_other_connection(tmp_path: Path) -> None:
    path = tmp_path / "shared.axmem"
    a = Workspace.open(path, create=True)
    b = Workspace.open(path)
    before = a.data_version()
    b.skills.upsert(Skill("x", "X", "", "c"))
    assert a.data_version() != before
    assert a.skills.get("x") is not None
    a.close()
    b.close()


def test_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.axmem"
    path.write_bytes(b"hello, not a database")
    with pytest.raises(WorkspaceError, match="not an SQLite database"):
        Workspace.open(path)
    assert path.read_bytes() == b"hello, not a database"


def test_foreign_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.axmem"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(WorkspaceError, match="not an Ax Memory & Skills Studio workspace"):
        Workspace.open(path)
    assert path.read_bytes() == before


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.axmem"
    Workspace.open(path, create=True).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
        "VALUES ('axmem', 'm999_from_the_future', 'later')"
    )
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(WorkspaceError, match="newer version"):
        Workspace.open(path)
    assert path.read_bytes() == before


def test_damaged_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.axmem"
    Workspace.open(path, create=True).close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(data))
    with pytest.raises(WorkspaceError):
        Workspace.open(path)


def test_read_only_media_opens_read_only(tmp_path: Path) -> None:
    folder = tmp_path / "media"
    folder.mkdir()
    path = folder / "ro.axmem"
    with Workspace.open(path, create=True) as w:
        w.skills.upsert(Skill("a", "A", "", "x"))
    before = path.read_bytes()
    with read_only_folder(folder), Workspace.open(path) as w:
        assert w.read_only
        assert w.skills.get("a") == Skill("a", "A", "", "x")
        with pytest.raises(ReadOnlyError):
            w.memories.upsert(Memory("m", "y"))
    assert path.read_bytes() == before


def test_read_only_open_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "ro.axmem"
    with Workspace.open(path, create=True) as w:
        w.skills.upsert(Skill("a", "A", "", "x"))
    with Workspace.open(path, read_only=True) as w:
        assert w.read_only
        assert w.skills.get("a") == Skill("a", "A", "", "x")
        with pytest.raises(ReadOnlyError):
            w.skills.upsert(Skill("b", "B", "", "y"))


def test_disk_full_rolls_back_with_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "full.axmem"
    with Workspace.open(path, create=True) as w:
        w.skills.upsert(Skill("kept", "Kept", "", "safe"))
    with Workspace.open(path) as w:
        pages = w.db.execute("PRAGMA page_count").fetchone()[0]
        # The file may not grow past a few more pages: what a full disk looks like.
        w.db.execute(f"PRAGMA max_page_count = {pages + 3}")
        with pytest.raises(WorkspaceError, match="disk is full"), w.transaction():
            for i in range(500):
                w.skills.upsert(Skill(f"big-{i}", "Big", "", "x" * 4000))
        assert w.skills.ids() == ["kept"]
    with Workspace.open(path) as w:
        assert w.integrity_check() == "ok"
        assert w.skills.ids() == ["kept"]


def test_locked_workspace_reports_clearly(tmp_path: Path) -> None:
    path = tmp_path / "locked.axmem"
    Workspace.open(path, create=True).close()
    holder = sqlite3.connect(path)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO workspace_settings (key, value) VALUES ('x', '1')")
    with Workspace.open(path) as w:
        w.db.execute("PRAGMA busy_timeout = 50")
        with pytest.raises(WorkspaceError, match="another program is writing"):
            w.skills.upsert(Skill("a", "A", "", "x"))
    holder.rollback()
    holder.close()


def test_deleted_entry_comes_back_in_its_catalog_position(ws: Workspace) -> None:
    for name in ("a", "b", "c"):
        ws.skills.upsert(Skill(name, name.upper(), "", "x"))
    ws.skills.delete("b")
    ws.skills.upsert(Skill("d", "D", "", "x"))
    ws.skills.upsert(Skill("b", "B", "", "x"))  # undo of the delete
    assert ws.skills.ids() == ["a", "b", "c", "d"]
    ws.skills.delete("c")
    ws.skills.restore(ws.skills.history("c")[-1])
    assert ws.skills.ids() == ["a", "b", "c", "d"]


def test_snapshot_delete_and_session_head(ws: Workspace) -> None:
    pk = ws.contextmaps.add("ops", {"text": "x"})
    assert ws.contextmaps.delete(pk) and ws.contextmaps.count() == 0
    ws.sessions.save({"id": "s", "name": "n", "exchanges": [{"stage": "x"}], "warnings": []})
    # the exchanges are rows of their own: the head keeps their place, empty
    assert ws.sessions.head("s") == {"id": "s", "name": "n", "exchanges": [], "warnings": []}
    assert list(ws.sessions.get("s") or {}) == ["id", "name", "exchanges", "warnings"]


def test_reading_the_whole_catalog_gives_the_entries_one_by_one_reads_give(
    ws: Workspace,
) -> None:
    """`all()` reads rows straight into entries (the fast path at start-up): the same
    entries, tags and extra keys as `get()` of each id, in insertion order."""
    ws.skills.upsert(Skill("b", "B", "d", "c", ("t1", "t2"), {"license": "MIT", "n": [1]}))
    ws.skills.upsert(Skill("a", "A"))
    ws.memories.upsert(Memory("z", "zed", ("x",)))
    ws.memories.upsert(Memory("y", ""))
    ws.memories.upsert(Memory("w", "wide ✓", ("ü", "")))
    for repo in (ws.skills, ws.memories):
        every = repo.all()
        one_by_one = [repo.get(i) for i in repo.ids()]
        assert every == one_by_one
        assert [repr(e) for e in every] == [repr(e) for e in one_by_one]
    assert [m.id for m in ws.memories.all()] == ["z", "y", "w"]
    assert ws.memories.all()[2].tags == ("ü", "")
    assert ws.skills.all()[0].extra == {"license": "MIT", "n": [1]}


def test_an_immediate_transaction_holds_the_write_lock_from_its_start(ws: Workspace) -> None:
    """A deferred transaction that read before another connection committed cannot write
    at all (SQLITE_BUSY, whatever the busy timeout): a read-decide-write block (a session
    import picking a free id) takes the lock first."""
    other = Workspace.open(ws.path)
    try:
        other.db.execute("PRAGMA busy_timeout = 0")
        with ws.transaction(immediate=True):
            assert ws.skills.ids() == []  # the read the write depends on
            with pytest.raises(WorkspaceError, match="another program is writing"):
                other.skills.upsert(Skill("b", "B", "", "x"))
            ws.skills.upsert(Skill("a", "A", "", "x"))
        assert other.skills.ids() == ["a"]
        with pytest.raises(RuntimeError), ws.transaction(immediate=True):
            ws.skills.upsert(Skill("c", "C", "", "x"))
            with ws.transaction(immediate=True):  # nested: a savepoint
                ws.skills.upsert(Skill("d", "D", "", "x"))
            raise RuntimeError("boom")
        assert not ws.db.conn.in_transaction
        assert other.skills.ids() == ["a"]
        other.skills.upsert(Skill("b", "B", "", "x"))  # the lock is free again
    finally:
        other.close()
