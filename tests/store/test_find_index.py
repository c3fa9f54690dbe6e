"""The lists' filter through the trigram index (schema m007): the same rows as reading
every row with LIKE, kept in step by triggers whoever writes the file, and used by the
queries (their plans), so a keystroke in the memories filter does not read 100,000 rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.store import Workspace, schema

ALPHABET = "aAbBkK_%\\ é\u212a\"'-:"


def _ascii_fold(text: str) -> str:
    """SQLite's LIKE folds ASCII letters only."""
    return "".join(c.lower() if c.isascii() else c for c in text)


def _reference(ws: Workspace, table: str, columns: tuple[str, ...], text: str) -> list[str]:
    """The ids LIKE '%text%' finds in any column, in pk order, by reading every row."""
    cols = ", ".join(columns)
    rows = ws.db.execute(f"SELECT id, {cols} FROM {table} ORDER BY pk").fetchall()
    needle = _ascii_fold(text)
    return [r[0] for r in rows if any(needle in _ascii_fold(str(v)) for v in r[1:])]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    contents=st.lists(st.text(ALPHABET, max_size=12), min_size=1, max_size=12),
    text=st.text(ALPHABET, min_size=1, max_size=6),
)
def test_the_index_finds_exactly_what_like_finds(
    tmp_path_factory: pytest.TempPathFactory, contents: list[str], text: str
) -> None:
    path = tmp_path_factory.mktemp("find") / "w.axmem"
    with Workspace.open(path, create=True) as ws:
        with ws.transaction():
            for i, content in enumerate(contents):
                ws.memories.upsert(Memory(f"m{i}-{content[:3]}", content, (content[::-1],)))
                ws.skills.upsert(Skill(f"s{i}", content.upper(), content, "", ()))
        want = _reference(ws, "memories", ("id", "content", "tags"), text)
        rows, _last = ws.memories.raw_page_after(None, 100, text_filter=text)
        assert [r[2] for r in rows] == want
        assert ws.memories.count_filtered(text) == len(want)
        skills = _reference(ws, "skills", ("id", "name", "description", "content", "tags"), text)
        rows, _last = ws.skills.raw_page_after(None, 100, text_filter=text)
        assert [r[2] for r in rows] == skills


def test_every_writer_keeps_the_index_in_step(tmp_path: Path) -> None:
    path = tmp_path / "w.axmem"
    with Workspace.open(path, create=True) as ws:
        ws.memories.upsert(Memory("kube-notes", "kubernetes upgrade runbook"))
        ws.memories.upsert(Memory("other", "nothing here"))
        assert ws.memories.count_filtered("UPGRADE") == 1
        ws.memories.upsert(Memory("kube-notes", "helm charts only"))  # an edit
        assert ws.memories.count_filtered("upgrade") == 0
        assert ws.memories.count_filtered("helm chart") == 1
        ws.memories.rename("kube-notes", "cluster-notes")
        assert ws.memories.count_filtered("cluster-no") == 1
        assert ws.memories.count_filtered("kube-no") == 0
        ws.memories.delete("cluster-notes")
        assert ws.memories.count_filtered("helm") == 0
    # (A row another program writes with raw SQL is not indexed: the schema has no
    # triggers, which `trusted_schema = OFF` would refuse to run on a virtual table.)


def test_a_migrated_workspace_finds_its_old_entries(tmp_path: Path) -> None:
    from tests.store.test_migrations import _workspace_at_version

    path = tmp_path / "old.axmem"
    _workspace_at_version(path, schema.known_migration_names().index("m007_find_index"))
    with Workspace.open(path) as ws:
        assert ws.skills.count_filtered("legac") == 1  # written before the index existed
        rows, _last = ws.skills.raw_page_after(None, 10, text_filter="body")
        assert [r[2] for r in rows] == ["legacy"]


def _plans(path: Path, statements: list[tuple[str, tuple[object, ...]]]) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [
            " / ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", args))
            for sql, args in statements
        ]
    finally:
        conn.close()


def _recorded(ws: Workspace) -> list[tuple[str, tuple[object, ...]]]:
    """The statements `ws` runs on its catalog tables from now on."""
    statements: list[tuple[str, tuple[object, ...]]] = []
    original = ws.db.execute

    def recording(sql: str, args: object = ()) -> sqlite3.Cursor:
        if "FROM memories" in sql:
            statements.append((sql, tuple(args)))  # type: ignore[arg-type]
        return original(sql, args)  # type: ignore[arg-type]

    ws.db.execute = recording  # type: ignore[method-assign,assignment]
    return statements


def _assert_index_used(path: Path, statements: list[tuple[str, tuple[object, ...]]]) -> None:
    assert statements
    for plan, (sql, _args) in zip(_plans(path, statements), statements, strict=True):
        assert "VIRTUAL TABLE INDEX" in plan, (sql, plan)
        # The table is searched by pk for the index's candidates, never scanned whole.
        assert "SCAN memories " not in plan + " ", (sql, plan)


def test_filter_queries_read_candidates_from_the_index(tmp_path: Path) -> None:
    path = tmp_path / "w.axmem"
    with Workspace.open(path, create=True) as ws:
        with ws.transaction():
            for i in range(50):
                ws.memories.upsert(Memory(f"m{i}", f"note {i} about kubernetes" if i % 7 else "x"))
        statements = _recorded(ws)
        # What a list asks for a keystroke: its first page, and the count.
        for order in ("pk", "id", "content desc"):
            rows, _last = ws.memories.raw_page_after(None, 5, text_filter="kubern", order_by=order)
            assert len(rows) == 5
        assert ws.memories.count_filtered("kubern") == 42
    _assert_index_used(path, statements)


def test_pages_from_the_end_and_positions_use_the_index_too(tmp_path: Path) -> None:
    path = tmp_path / "w.axmem"
    with Workspace.open(path, create=True) as ws:
        with ws.transaction():
            for i in range(50):
                ws.memories.upsert(Memory(f"m{i}", f"note {i} about kubernetes" if i % 7 else "x"))
        statements = _recorded(ws)
        for order in ("pk", "id", "content desc"):
            last = ws.memories.raw_page(
                None, 5, text_filter="kubern", order_by=order, backward=True
            )
            skipped = ws.memories.raw_page(None, 5, text_filter="kubern", order_by=order, skip=3)
            assert len(last) == len(skipped) == 5
        assert ws.memories.position("m3", text_filter="kubern") == 2
    _assert_index_used(path, statements)


def test_a_long_filter_queries_a_bounded_number_of_trigrams() -> None:
    from axmem_gui.store.entry_queries import MAX_FILTER_TRIGRAMS, trigram_match

    assert trigram_match("ab") is None
    assert trigram_match("abc") == '"abc"'
    assert trigram_match('a"bc') == '"a""b" AND """bc"'
    match = trigram_match("x" * 10 + "".join(chr(0x100 + i) for i in range(200)))
    assert match is not None and match.count(" AND ") == MAX_FILTER_TRIGRAMS - 1
