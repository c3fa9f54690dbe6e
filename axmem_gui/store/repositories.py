"""The repositories of the workspace's other aggregates: named JSON documents (scenarios,
suites and their runs, agent configs), recorded sessions, eval runs, context-map snapshots
and workspace settings. The catalog's are in `store/entries.py`. Each write that belongs
together runs in one transaction (`Database.atomic`, savepoints when nested)."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.errors import ConflictError, ReadOnlyError, WorkspaceError
from axmem_gui.store.errors import translate_errors
from axmem_gui.store.lean_sqlite_utils import Database
from axmem_gui.store.records import (
    ContextMapSnapshot,
    Document,
    SessionSummary,
    dumps,
    loads,
    now_iso,
)


class DocumentRepository:
    """Named JSON documents: scenarios, suites, agent configs."""

    def __init__(self, db: Database, table: str, read_only: bool) -> None:
        self._db = db
        self._table = table
        self._read_only = read_only

    def list(self) -> builtins.list[str]:
        return [r[0] for r in self._db.execute(f"SELECT name FROM {self._table} ORDER BY name")]

    def count(self) -> int:
        return int(self._db.execute(f"SELECT count(*) FROM {self._table}").fetchone()[0])

    def document(self, name: str) -> Document | None:
        row = self._db.execute(
            f"SELECT name, data, revision, created_at, updated_at FROM {self._table} "
            "WHERE name = ?",
            [name],
        ).fetchone()
        if row is None:
            return None
        return Document(row[0], loads(row[1]), row[2], row[3], row[4])

    def get(self, name: str) -> dict[str, Any] | None:
        doc = self.document(name)
        return None if doc is None else doc.data

    @translate_errors
    def save(self, name: str, data: dict[str, Any], *, expected_revision: int | None = None) -> int:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            current = self.document(name)
            actual = None if current is None else current.revision
            if expected_revision is not None and (actual or 0) != expected_revision:
                raise ConflictError(self._table.rstrip("s"), name, expected_revision, actual)
            at = now_iso()
            if current is None:
                self._db.execute(
                    f"INSERT INTO {self._table} (name, data, created_at, updated_at, revision) "
                    "VALUES (?, ?, ?, ?, 1)",
                    [name, dumps(data), at, at],
                )
                return 1
            self._db.execute(
                f"UPDATE {self._table} SET data = ?, updated_at = ?, revision = revision + 1 "
                "WHERE name = ?",
                [dumps(data), at, name],
            )
            return current.revision + 1

    @translate_errors
    def delete(self, name: str) -> bool:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            cur = self._db.execute(f"DELETE FROM {self._table} WHERE name = ?", [name])
            return cur.rowcount > 0


class SuiteRepository(DocumentRepository):
    @translate_errors
    def record_run(self, name: str, passed: int, failed: int, result: dict[str, Any]) -> None:
        if self._read_only:
            return  # results of a read-only workspace live only in memory
        with self._db.atomic():
            self._db.execute(
                "INSERT INTO suite_runs (suite_name, run_at, passed, failed, result) "
                "VALUES (?, ?, ?, ?, ?)",
                [name, now_iso(), passed, failed, dumps(result)],
            )

    def last_run(self, name: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT result FROM suite_runs WHERE suite_name = ? ORDER BY pk DESC LIMIT 1", [name]
        ).fetchone()
        return None if row is None else dict(loads(row[0]))


_EXCHANGE_KEYS = ("exchanges",)


class SessionRepository:
    """Recorded agent sessions. The session document is stored without its exchanges;
    each model exchange is a row of its own (ordered by seq) so long sessions page well."""

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only

    @translate_errors
    def save(self, doc: dict[str, Any]) -> str:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        session_id = doc.get("id")
        if not isinstance(session_id, str) or not session_id:
            raise WorkspaceError("a session needs a non-empty string 'id'")
        exchanges = doc.get("exchanges") or []
        # The exchanges are rows of their own; the head keeps an empty list in their
        # place, so a session read back has its keys in the order it was written.
        head = {k: [] if k in _EXCHANGE_KEYS else v for k, v in doc.items()}
        provider = doc.get("provider") if isinstance(doc.get("provider"), dict) else {}
        assert isinstance(provider, dict)
        with self._db.atomic():
            self._db.execute("DELETE FROM sessions WHERE id = ?", [session_id])
            cur = self._db.execute(
                "INSERT INTO sessions (id, name, agent, provider, model, status, created_at, doc) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    session_id,
                    str(doc.get("name") or ""),
                    str(_agent_name(doc)),
                    str(provider.get("name") or provider.get("provider") or ""),
                    str(provider.get("model") or doc.get("model") or ""),
                    str(doc.get("status") or "complete"),
                    str(doc.get("created_at") or doc.get("createdAt") or now_iso()),
                    dumps(head),
                ],
            )
            session_pk = cur.lastrowid
            for seq, exchange in enumerate(exchanges):
                usage = exchange.get("usage") if isinstance(exchange, dict) else None
                usage = usage if isinstance(usage, dict) else {}
                self._db.execute(
                    "INSERT INTO session_exchanges (session_pk, seq, stage, digest, duration_ms, "
                    "prompt_tokens, completion_tokens, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        session_pk,
                        seq,
                        str(exchange.get("stage") or "") if isinstance(exchange, dict) else "",
                        str(exchange.get("digest") or "") if isinstance(exchange, dict) else "",
                        _number(exchange, "duration_ms", "durationMs"),
                        _int(usage.get("prompt_tokens", usage.get("promptTokens"))),
                        _int(usage.get("completion_tokens", usage.get("completionTokens"))),
                        dumps(exchange),
                    ],
                )
        return session_id

    def head(self, session_id: str) -> dict[str, Any] | None:
        """The session document without its exchanges (cheap for large sessions)."""
        row = self._db.execute("SELECT doc FROM sessions WHERE id = ?", [session_id]).fetchone()
        return None if row is None else dict(loads(row[0]))

    def get(self, session_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT pk, doc FROM sessions WHERE id = ?", [session_id]).fetchone()
        if row is None:
            return None
        doc = dict(loads(row[1]))
        doc["exchanges"] = [
            loads(r[0])
            for r in self._db.execute(
                "SELECT data FROM session_exchanges WHERE session_pk = ? ORDER BY seq", [row[0]]
            )
        ]
        return doc

    def list(self) -> builtins.list[SessionSummary]:
        rows = self._db.execute(
            "SELECT s.id, s.name, s.agent, s.provider, s.model, s.status, s.created_at, "
            "(SELECT count(*) FROM session_exchanges e WHERE e.session_pk = s.pk) "
            "FROM sessions s ORDER BY s.created_at, s.pk"
        ).fetchall()
        return [SessionSummary(*r) for r in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM sessions").fetchone()[0])

    @translate_errors
    def delete(self, session_id: str) -> bool:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            return self._db.execute("DELETE FROM sessions WHERE id = ?", [session_id]).rowcount > 0


def _agent_name(doc: dict[str, Any]) -> str:
    agent = doc.get("agent")
    if isinstance(agent, dict):
        return str(agent.get("name") or "")
    return str(agent or "")


def _number(obj: Any, *keys: str) -> float | None:
    if not isinstance(obj, dict):
        return None
    for key in keys:
        value = obj.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    timing = obj.get("timing")
    if isinstance(timing, dict):
        return _number(timing, *keys)
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class EvalRunRow:
    """One stored eval run, without its data (for lists)."""

    id: str
    set_name: str
    status: str
    provider: str
    model: str
    started_at: str
    updated_at: str


class EvalRunRepository:
    """Eval runs: the stored report (set, provider, run records) keyed by the run id.
    `save` replaces the row, so the caller can write after every finished agent run."""

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only

    @translate_errors
    def save(self, data: dict[str, Any]) -> str:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        run_id = data.get("id")
        if not isinstance(run_id, str) or not run_id:
            raise WorkspaceError("an eval run needs a non-empty string 'id'")
        eval_set = data.get("set") if isinstance(data.get("set"), dict) else {}
        provider = data.get("provider") if isinstance(data.get("provider"), dict) else {}
        assert isinstance(eval_set, dict) and isinstance(provider, dict)
        with self._db.atomic():
            self._db.execute(
                "INSERT INTO eval_runs (id, set_name, status, provider, model, started_at, "
                "updated_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
                "updated_at = excluded.updated_at, data = excluded.data",
                [
                    run_id,
                    str(eval_set.get("name") or ""),
                    str(data.get("status") or ""),
                    str(provider.get("name") or ""),
                    str(provider.get("model") or ""),
                    str(data.get("started_at") or now_iso()),
                    now_iso(),
                    dumps(data),
                ],
            )
        return run_id

    def get(self, run_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT data FROM eval_runs WHERE id = ?", [run_id]).fetchone()
        return None if row is None else dict(loads(row[0]))

    def list(self, set_name: str | None = None) -> builtins.list[EvalRunRow]:
        where, params = ("WHERE set_name = ?", [set_name]) if set_name is not None else ("", [])
        rows = self._db.execute(
            "SELECT id, set_name, status, provider, model, started_at, updated_at "
            f"FROM eval_runs {where} ORDER BY pk",
            params,
        ).fetchall()
        return [EvalRunRow(*r) for r in rows]

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM eval_runs").fetchone()[0])

    @translate_errors
    def delete(self, run_id: str) -> bool:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            return self._db.execute("DELETE FROM eval_runs WHERE id = ?", [run_id]).rowcount > 0


class ContextMapRepository:
    """Snapshots of context maps over time, per agent config and per session."""

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only

    @translate_errors
    def add(
        self,
        agent: str,
        state: dict[str, Any],
        *,
        label: str = "",
        session_id: str | None = None,
        update_info: dict[str, Any] | None = None,
    ) -> int:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            cur = self._db.execute(
                "INSERT INTO contextmap_snapshots (agent, session_id, label, created_at, state, "
                "update_info) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    agent,
                    session_id,
                    label,
                    now_iso(),
                    dumps(state),
                    None if update_info is None else dumps(update_info),
                ],
            )
            return int(cur.lastrowid or 0)

    def list(self, agent: str | None = None) -> builtins.list[ContextMapSnapshot]:
        sql = (
            "SELECT pk, agent, session_id, label, created_at, state, update_info "
            "FROM contextmap_snapshots"
        )
        params: builtins.list[Any] = []
        if agent is not None:
            sql += " WHERE agent = ?"
            params.append(agent)
        rows = self._db.execute(sql + " ORDER BY pk", params).fetchall()
        return [
            ContextMapSnapshot(r[0], r[1], r[2], r[3], r[4], loads(r[5]), loads(r[6])) for r in rows
        ]

    def get(self, pk: int) -> ContextMapSnapshot | None:
        for snap in self._iter_where("pk = ?", [pk]):
            return snap
        return None

    def _iter_where(self, where: str, params: builtins.list[Any]) -> Iterator[ContextMapSnapshot]:
        rows = self._db.execute(
            "SELECT pk, agent, session_id, label, created_at, state, update_info "
            f"FROM contextmap_snapshots WHERE {where} ORDER BY pk",
            params,
        ).fetchall()
        for r in rows:
            yield ContextMapSnapshot(r[0], r[1], r[2], r[3], r[4], loads(r[5]), loads(r[6]))

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM contextmap_snapshots").fetchone()[0])

    @translate_errors
    def delete(self, pk: int) -> bool:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            cur = self._db.execute("DELETE FROM contextmap_snapshots WHERE pk = ?", [pk])
            return cur.rowcount > 0


class SettingsRepository:
    """Workspace-level settings (travel with the file; app settings live in QSettings)."""

    def __init__(self, db: Database, read_only: bool) -> None:
        self._db = db
        self._read_only = read_only

    def get(self, key: str, default: Any = None) -> Any:
        row = self._db.execute(
            "SELECT value FROM workspace_settings WHERE key = ?", [key]
        ).fetchone()
        return default if row is None else loads(row[0])

    @translate_errors
    def set(self, key: str, value: Any) -> None:
        if self._read_only:
            raise ReadOnlyError("this workspace is open read-only; changes are disabled")
        with self._db.atomic():
            self._db.execute(
                "INSERT INTO workspace_settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, dumps(value)],
            )

