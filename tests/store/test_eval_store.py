"""Eval sets and eval runs in the workspace: a v5 workspace gains the tables on open, runs
are replaced in place (one row per run id), and a read-only workspace refuses writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from axmem_gui.core.errors import WorkspaceError
from axmem_gui.store import Workspace, schema
from tests.store.test_migrations import _workspace_at_version


def test_a_workspace_from_before_evals_gets_the_tables(tmp_path: Path) -> None:
    path = tmp_path / "v5.axmem"
    _workspace_at_version(path, schema.known_migration_names().index("m006_evals"))
    with Workspace.open(path) as ws:
        assert ws.evals.list() == [] and ws.eval_runs.count() == 0
        ws.evals.save("s", {"name": "s"})
        assert ws.counts().evals == 1


def test_an_eval_run_row_is_rewritten_in_place(tmp_path: Path) -> None:
    with Workspace.open(tmp_path / "w.axmem", create=True) as ws:
        doc = {"id": "r1", "set": {"name": "s"}, "provider": {"name": "p", "model": "m"},
               "status": "running", "started_at": "t0", "runs": []}  # fmt: skip
        ws.eval_runs.save(doc)
        ws.eval_runs.save({**doc, "status": "complete", "runs": [{"case": "c"}]})
        (row,) = ws.eval_runs.list()
        assert (row.id, row.set_name, row.status, row.model) == ("r1", "s", "complete", "m")
        assert ws.eval_runs.get("r1") == {**doc, "status": "complete", "runs": [{"case": "c"}]}
        assert ws.eval_runs.list("other") == []
        with pytest.raises(WorkspaceError, match="non-empty string 'id'"):
            ws.eval_runs.save({"id": ""})
        assert ws.eval_runs.delete("r1") and not ws.eval_runs.delete("r1")


def test_a_read_only_workspace_refuses_eval_writes(tmp_path: Path) -> None:
    path = tmp_path / "w.axmem"
    Workspace.open(path, create=True).close()
    with Workspace.open(path, read_only=True) as ws, pytest.raises(WorkspaceError):
        ws.eval_runs.save({"id": "r"})
