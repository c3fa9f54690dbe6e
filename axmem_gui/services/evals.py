"""The evals aggregate (eval sets and their runs) and trigger evals as a use case:
author sets, run them on a real model, compare two runs.

Running a set drives the real agent (`sessions.run_agent`, the same path as a live run:
axllm, the Ax-exact search, session recording) once per case and repeat. Every agent run
is saved as a workspace session (replayable, shown on the Sessions page) and as a run
record of the eval; the eval run row is rewritten after every finished agent run, so a
failure, a cancel or a crash keeps everything done so far.

The run itself is services/eval_running.py: a thread pool of `parallel` workers (at least
1); the workspace is only touched from the calling thread (SQLite connections are not
shared between threads). Its `EvalProgress`, what the progress callbacks of
`EvalService.run` and `run_eval_at` get, is named through this module. The GUI runs an
eval on a job: `run_eval_at` opens the workspace on the job's thread.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import astuple, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axmem_gui.core.cancel import CancelFlag
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import AxmemError, ConflictError, InputError
from axmem_gui.core.evals.compare import EvalComparison, compare_reports, to_junit_xml
from axmem_gui.core.evals.model import EvalSet, eval_set_from_json_value, eval_sets_from_json_text
from axmem_gui.core.evals.report import EvalReport, report_from_json_value
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import select_catalog
from axmem_gui.core.session.model import Session
from axmem_gui.engine.agent_factory import axllm_input_kinds
from axmem_gui.services import sessions
from axmem_gui.services.agent_runner import AgentRunner
from axmem_gui.services.aggregates import Change, Notices, WorkspaceAddress
from axmem_gui.services.eval_running import EvalProgress as EvalProgress
from axmem_gui.services.eval_running import run_eval, set_problems
from axmem_gui.services.files import read_utf8_file, write_file_atomic

if TYPE_CHECKING:
    from axmem_gui.store.workspace import Workspace


# --------------------------------------------------------------------------- sets


def read_set_file(path: Path) -> list[EvalSet]:
    return eval_sets_from_json_text(read_utf8_file(path, "eval set file"), str(path))


def read_set_text(text: str, source: str) -> list[EvalSet]:
    return eval_sets_from_json_text(text, source)


# --------------------------------------------------------------------------- results


def read_report_file(path: Path) -> EvalReport:
    text = read_utf8_file(path, "eval report")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg})") from None
    return report_from_json_value(value, str(path))


def compare(a: EvalReport, b: EvalReport) -> EvalComparison:
    return compare_reports(a, b)


def write_junit(path: Path, reports: list[EvalReport]) -> None:
    write_file_atomic(path, to_junit_xml(reports), "JUnit report")


# --------------------------------------------------------------------------- the aggregate


@dataclass(frozen=True, slots=True)
class EvalSetChange:
    """Set `name` goes from `before` (what the caller saw; None = absent) to `after`
    (None = removed): one undoable step of the GUI, applied in one transaction."""

    name: str
    before: EvalSet | None
    after: EvalSet | None

    def reversed(self) -> EvalSetChange:
        return EvalSetChange(self.name, self.after, self.before)


def check_set_name(name: str) -> str:
    clean = name.strip()
    if not clean:
        raise InputError("an eval set needs a name")
    if len(clean) > 200:
        raise InputError(f"eval set name is too long ({len(clean)} characters; at most 200)")
    return clean


class EvalService:
    """The eval sets and eval runs of one open workspace."""

    def __init__(self, store: Workspace, notices: Notices | None = None) -> None:
        self._store = store
        self._notices = notices if notices is not None else Notices()

    # sets ---------------------------------------------------------------------------
    def names(self) -> list[str]:
        return self._store.evals.list()

    def sets(self) -> list[EvalSet]:
        """Every eval set in name order (InputError names the first that does not read)."""
        out = []
        for name in self.names():
            data = self._store.evals.get(name)
            if data is not None:
                out.append(eval_set_from_json_value(data, f"workspace eval set '{name}'"))
        return out

    def get_set(self, name: str | None) -> EvalSet:
        """The named set, or the only one when `name` is None."""
        return self._get_set(name)[0]

    def _get_set(self, name: str | None) -> tuple[EvalSet, int]:
        names = self.names()
        where = self._store.path
        if name is None:
            if len(names) != 1:
                known = ", ".join(names) or "none"
                raise InputError(f"{where}: name an eval set with --set (eval sets: {known})")
            name = names[0]
        doc = self._store.evals.document(name)
        if doc is None:
            known = ", ".join(names) or "none"
            raise InputError(f"{where}: no eval set named '{name}' (eval sets: {known})")
        return eval_set_from_json_value(doc.data, f"workspace eval set '{name}'"), doc.revision

    def revision_of(self, name: str) -> int | None:
        doc = self._store.evals.document(name)
        return None if doc is None else doc.revision

    def add_sets(self, sets: Sequence[EvalSet], *, replace_existing: bool) -> dict[str, int]:
        """Store the sets, all or none: an existing name is refused unless replacing (and
        a set written meanwhile by another program is never overwritten unseen: each
        write expects the revision read here). Returns each set's new revision."""
        out: dict[str, int] = {}
        with self._store.transaction(immediate=True):
            seen = {s.name: self.revision_of(s.name) for s in sets}
            clash = [name for name, revision in seen.items() if revision is not None]
            if clash and not replace_existing:
                raise InputError(
                    f"eval set '{clash[0]}' already exists in {self._store.path}; "
                    "use --replace to overwrite"
                )
            for eval_set in sets:
                out[eval_set.name] = self.save_set(eval_set, seen[eval_set.name] or 0)
        self._notices.publish(Change("evals", tuple(out), any(r is None for r in seen.values())))
        return out

    def save_set(self, eval_set: EvalSet, expected_revision: int | None = None) -> int:
        """Store one set; with `expected_revision` (0: must not exist yet) ConflictError
        when the stored one is at another revision."""
        revision = self._store.evals.save(
            eval_set.name, eval_set.to_json(), expected_revision=expected_revision
        )
        if not self._store.db.conn.in_transaction:
            self._notices.publish(Change("evals", (eval_set.name,), revision == 1))
        return revision

    def remove_set(self, name: str, expected_revision: int | None = None) -> None:
        with self._store.transaction(immediate=True):
            actual = self.revision_of(name)
            if actual is None:
                raise InputError(f"{self._store.path}: no eval set named '{name}'")
            if expected_revision is not None and actual != expected_revision:
                raise ConflictError("eval set", name, expected_revision, actual)
            self._store.evals.delete(name)
        self._notices.publish(Change("evals", (name,), True))

    def set_and_revision(self, name: str) -> tuple[EvalSet, int]:
        """The named set and the revision it is stored at (InputError when absent)."""
        return self._get_set(name)

    def move_case(
        self, set_name: str, case_name: str, to: int, expected_revision: int | None = None
    ) -> int:
        """Put case `case_name` of set `set_name` at position `to` (0 is first), the others
        keeping their order: one write, refused (ConflictError, nothing written) when the
        set is no longer at `expected_revision`. Returns the set's new revision (the same
        when the case is at `to` already: nothing is written)."""
        with self._store.transaction(immediate=True):
            eval_set, revision = self._get_set(set_name)
            if expected_revision is not None and revision != expected_revision:
                raise ConflictError(
                    "eval set", set_name, expected_revision, revision,
                    f"eval set '{set_name}' was changed elsewhere (revision {revision}, "
                    f"not {expected_revision}); case '{case_name}' was not moved",
                )  # fmt: skip
            cases = list(eval_set.cases)
            names = [c.name for c in cases]
            if case_name not in names:
                raise InputError(
                    f"eval set '{set_name}' has no case '{case_name}' (cases: {', '.join(names)})"
                )
            if not 0 <= to < len(cases):
                raise InputError(
                    f"eval set '{set_name}': cannot move case '{case_name}' to position "
                    f"{to + 1}; the set has {len(cases)} case(s)"
                )
            if names.index(case_name) == to:
                return revision  # already there: nothing to write
            cases.insert(to, cases.pop(names.index(case_name)))
            moved = replace(eval_set, cases=tuple(cases))
            new_revision = self._store.evals.save(
                set_name, moved.to_json(), expected_revision=revision
            )
        self._notices.publish(Change("evals", (set_name,), False))
        return new_revision

    def agent_names(self) -> list[str]:
        from axmem_gui.services.agents import AgentService

        return AgentService(self._store).names()

    def agent_inputs(self, agent: str) -> tuple[str, ...]:
        """The input fields a case of a set run by `agent` gives values for (InputError
        when there is no such agent)."""
        return tuple(sessions.agent_from_workspace(self._store, agent).input_fields)

    def agent_input_kinds(self, agent: str) -> dict[str, tuple[bool, bool]]:
        """Each input of `agent`: (edited as JSON, optional) — see `axllm_input_kinds`."""
        return axllm_input_kinds(sessions.agent_from_workspace(self._store, agent).signature)

    def problems(self, eval_set: EvalSet) -> list[str]:
        """What would stop `eval_set` from running on this workspace (its agent, the
        inputs of each case, ids the agent's catalog lacks): the check a run makes first,
        for an editor to show before saving."""
        config = sessions.agent_from_workspace(self._store, eval_set.agent)
        return set_problems(eval_set, config, select_catalog(self._store.catalog(), config))

    def apply(self, changes: Sequence[EvalSetChange]) -> None:
        """Write every change in one transaction after checking each set still holds what
        the caller saw (ConflictError, nothing written, when another window or program
        changed it); every new value is read back the way the CLI reads a file."""
        repo = self._store.evals
        with self._store.transaction(immediate=True):
            for change in changes:
                doc = repo.document(change.name)
                stored = None if doc is None else _normalized(doc.data, change.name)
                seen = None if change.before is None else change.before.to_json()
                if stored != seen:
                    state = (
                        "was removed"
                        if stored is None
                        else ("already exists" if seen is None else "was changed elsewhere")
                    )
                    raise ConflictError(
                        "eval set", change.name, None, None,
                        f"eval set '{change.name}' {state}; nothing was changed",
                    )  # fmt: skip
            for change in changes:
                if change.after is None:
                    repo.delete(change.name)
            for change in changes:
                if change.after is not None:
                    if change.after.name != change.name:
                        raise InputError(
                            f"eval set '{change.name}': the new value is named "
                            f"'{change.after.name}'"
                        )
                    value = change.after.to_json()
                    eval_set_from_json_value(value, f"eval set '{change.name}'")
                    repo.save(change.name, value)
        structural = any((c.before is None) != (c.after is None) for c in changes)
        self._notices.publish(Change("evals", tuple(c.name for c in changes), structural))

    # runs ---------------------------------------------------------------------------
    def run(
        self,
        eval_set: EvalSet,
        settings: ProviderSettings,
        *,
        repeat: int | None = None,
        parallel: int = 1,
        catalog: Catalog | None = None,
        search: Any = None,
        cancel: CancelFlag | None = None,
        progress: Callable[[EvalProgress], None] | None = None,
        transport: Callable[[Mapping[str, Any]], Any] | None = None,
        label: str = "",
        run_id: str | None = None,
        runner: AgentRunner | None = None,
    ) -> EvalReport:
        """Run every case of `eval_set` `repeat` times (default: the set's and cases'
        own) with the set's agent over the workspace catalog (or `catalog`); every agent
        run is recorded as a session and the eval run is rewritten after each one (in a
        child process of `runner`, when given).

        Bad input (unknown agent, a case without a value for an input, an id the catalog
        lacks) raises InputError before any run. Once runs start nothing raises for a
        model or server failure: that run is recorded as failed with its reason and the
        rest go on."""
        report = run_eval(
            self._store, eval_set, settings, repeat=repeat, parallel=parallel,
            catalog=catalog, search=search, cancel=cancel, progress=progress,
            transport=transport, label=label, run_id=run_id, runner=runner,
        )  # fmt: skip
        if not self._store.read_only:
            changes = (Change("sessions"), Change("evals", (eval_set.name,), False))
            self._notices.publish_all(changes)
        return report

    def runs(self, set_name: str | None = None) -> list[EvalRunSummary]:
        """The stored runs (of one set), oldest first, without their data."""
        return [EvalRunSummary(*astuple(row)) for row in self._store.eval_runs.list(set_name)]

    def reports(self, set_name: str | None = None) -> list[EvalReport]:
        """The stored runs (of one set), oldest first; an unreadable stored run is skipped."""
        out = []
        for row in self._store.eval_runs.list(set_name):
            data = self._store.eval_runs.get(row.id)
            try:
                out.append(report_from_json_value(data, f"eval run '{row.id}'"))
            except AxmemError:
                continue
        return out

    def report(self, run_id: str) -> EvalReport:
        """A stored eval run; `last` (or `last:SET`) names the latest one."""
        if run_id == "last" or run_id.startswith("last:"):
            rows = self._store.eval_runs.list(run_id[5:] or None)
            if not rows:
                raise InputError(f"{self._store.path}: no eval run yet")
            run_id = rows[-1].id
        data = self._store.eval_runs.get(run_id)
        if data is None:
            raise InputError(f"{self._store.path}: no eval run '{run_id}'")
        return report_from_json_value(data, f"eval run '{run_id}'")

    def sessions_of(self, report: EvalReport) -> list[Session]:
        """The recorded sessions an eval run names (those still in the workspace)."""
        stored = sessions.SessionService(self._store)
        found = (stored.find(run.session_id) for run in report.runs if run.session_id)
        return [s for s in found if s is not None]


def _normalized(data: Any, name: str) -> Any:
    """A stored set as its reader sees it (defaults filled), to compare with a value the
    caller holds; a set that no longer reads is compared as stored."""
    try:
        return eval_set_from_json_value(data, f"eval set '{name}'").to_json()
    except AxmemError:
        return data


@dataclass(frozen=True, slots=True)
class EvalRunSummary:
    """One stored eval run, without its data (for lists)."""

    id: str
    set_name: str
    status: str
    provider: str
    model: str
    started_at: str
    updated_at: str

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "set_name": self.set_name,
            "status": self.status,
            "provider": self.provider,
            "model": self.model,
            "started_at": self.started_at,
            "updated_at": self.updated_at,
        }


def run_eval_at(
    address: WorkspaceAddress,
    set_name: str,
    settings: ProviderSettings,
    *,
    repeat: int | None = None,
    parallel: int = 1,
    cancel: CancelFlag | None = None,
    progress: Callable[[EvalProgress], None] | None = None,
    label: str = "",
    runner: AgentRunner | None = None,
) -> EvalReport:
    """`EvalService.run` of the set named, on the workspace at `address`, opened here (a
    job's own connection, on its own thread)."""
    from axmem_gui.services.workspace import open_at

    with open_at(address) as ws:
        return ws.evals.run(
            ws.evals.get_set(set_name), settings, repeat=repeat, parallel=parallel,
            cancel=cancel, progress=progress, label=label, runner=runner,
        )  # fmt: skip
