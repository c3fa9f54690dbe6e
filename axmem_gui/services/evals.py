"""Trigger evals as a use case: author sets, run them on a real model, compare two runs.

Running a set drives the real agent (`sessions.run_agent`, the same path as a live run:
axllm, the Ax-exact search, session recording) once per case and repeat. Every agent run
is saved as a workspace session (replayable, shown on the Sessions page) and as a run
record of the eval; the eval run row is rewritten after every finished agent run, so a
failure, a cancel or a crash keeps everything done so far.

Runs go through a thread pool (`parallel`, at least 1); the workspace is only touched from
the calling thread (SQLite connections are not shared between threads).
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.evals.compare import EvalComparison, compare_reports, to_junit_xml
from axmem_gui.core.evals.model import (
    EvalCase,
    EvalSet,
    check_against,
    eval_set_from_json_value,
    eval_sets_from_json_text,
)
from axmem_gui.core.evals.report import (
    EvalReport,
    EvalRun,
    failed_run,
    report_from_json_value,
    run_from_session,
)
from axmem_gui.core.session.agent_config import select_catalog
from axmem_gui.core.session.digest import canonical_json
from axmem_gui.core.session.model import Origin, Session
from axmem_gui.engine.clients import CancelToken, is_cancelled, utc_now
from axmem_gui.engine.providers import ProviderSettings
from axmem_gui.services import sessions
from axmem_gui.services.files import read_utf8_file, write_file_atomic

if TYPE_CHECKING:
    from axmem_gui.store.workspace import Workspace

#: More agent runs at once than this is a typo (each one is a model conversation).
MAX_PARALLEL = 16


# --------------------------------------------------------------------------- sets


def list_sets(ws: Workspace) -> list[EvalSet]:
    out = []
    for name in ws.evals.list():
        data = ws.evals.get(name)
        if data is not None:
            out.append(eval_set_from_json_value(data, f"workspace eval set '{name}'"))
    return out


def get_set(ws: Workspace, name: str | None) -> EvalSet:
    """The named set, or the only one when `name` is None."""
    names = ws.evals.list()
    if name is None:
        if len(names) != 1:
            known = ", ".join(names) or "none"
            raise InputError(f"{ws.path}: name an eval set with --set (eval sets: {known})")
        name = names[0]
    data = ws.evals.get(name)
    if data is None:
        known = ", ".join(names) or "none"
        raise InputError(f"{ws.path}: no eval set named '{name}' (eval sets: {known})")
    return eval_set_from_json_value(data, f"workspace eval set '{name}'")


def save_set(ws: Workspace, eval_set: EvalSet) -> int:
    return ws.evals.save(eval_set.name, eval_set.to_json())


def remove_set(ws: Workspace, name: str) -> None:
    if not ws.evals.delete(name):
        raise InputError(f"{ws.path}: no eval set named '{name}'")


def read_set_file(path: Path) -> list[EvalSet]:
    return eval_sets_from_json_text(read_utf8_file(path, "eval set file"), str(path))


def read_set_text(text: str, source: str) -> list[EvalSet]:
    return eval_sets_from_json_text(text, source)


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class EvalProgress:
    done: int  # agent runs finished (any status)
    total: int
    message: str
    run: EvalRun | None = None


def catalog_digest(catalog: Catalog) -> str:
    """Tells catalog versions apart in a comparison (before/after an edit)."""
    value = {
        "skills": [s.to_ax() for s in catalog.skills],
        "memories": [m.to_ax() for m in catalog.memories],
    }
    # canonical_json escapes lone surrogates (Ax accepts them in a catalog; utf-8 does not).
    return "sha256:" + hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:16]


def new_eval_run_id() -> str:
    return f"eval-{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"


_Outcome = tuple[EvalCase, int, Session | None, str, float]


def run_eval(
    ws: Workspace,
    eval_set: EvalSet,
    settings: ProviderSettings,
    *,
    repeat: int | None = None,
    parallel: int = 1,
    catalog: Catalog | None = None,
    search: Any = None,
    cancel: CancelToken | None = None,
    progress: Callable[[EvalProgress], None] | None = None,
    transport: Callable[[Mapping[str, Any]], Any] | None = None,
    label: str = "",
    run_id: str | None = None,
) -> EvalReport:
    """Run every case of `eval_set` `repeat` times (default: the set's and cases' own)
    with the set's agent over the workspace catalog (or `catalog`), and return the report.

    Bad input (unknown agent, a case without a value for an input, an id the catalog
    lacks) raises InputError before any run. Once runs start nothing raises for a model or
    server failure: that run is recorded as failed with its reason and the rest go on."""
    if repeat is not None and not 1 <= repeat <= 100:
        raise InputError(f"--repeat must be from 1 to 100, got {repeat}")
    if not 1 <= parallel <= MAX_PARALLEL:
        raise InputError(f"parallel runs must be from 1 to {MAX_PARALLEL}, got {parallel}")
    config = sessions.agent_from_workspace(ws, eval_set.agent)
    full = catalog if catalog is not None else ws.catalog()
    agent_catalog = select_catalog(full, config)
    problems = check_against(
        eval_set,
        config.input_fields,
        [s.id for s in agent_catalog.skills],
        [m.id for m in agent_catalog.memories],
    )
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(f"eval set '{eval_set.name}': {problems[0]}{more}")
    cancel = cancel if cancel is not None else CancelToken()
    report = EvalReport(
        id=run_id or new_eval_run_id(),
        eval_set=eval_set,
        provider={
            "name": settings.provider,
            "model": settings.model,
            "base_url": settings.base_url,
        },
        started_at=utc_now(),
        status="running",
        repeat=repeat,
        catalog_digest=catalog_digest(agent_catalog),
        label=label,
    )
    writable = not ws.read_only
    if writable:
        ws.eval_runs.save(report.stored_json())
    plan = [(case, n) for case in eval_set.cases for n in range(1, report.planned(case) + 1)]

    def one(case: EvalCase, attempt: int) -> _Outcome | None:
        if cancel.cancelled:
            return None  # never started: counted as not run
        started = time.perf_counter()
        try:
            doc = sessions.run_agent(
                config,
                full,
                [dict(case.inputs)],
                settings,
                name=f"eval {eval_set.name} · {case.name} · run {attempt}",
                search=search,
                cancel=cancel,
                transport=transport,
                origin=Origin(
                    kind="eval",
                    extra={
                        "eval_run": report.id,
                        "set": eval_set.name,
                        "case": case.name,
                        "attempt": attempt,
                    },
                ),
            )
        except AxmemError as exc:
            return case, attempt, None, str(exc), _ms(started)
        except Exception as exc:  # one broken run must not lose the others
            return case, attempt, None, f"{type(exc).__name__}: {exc}", _ms(started)
        return case, attempt, doc, "", _ms(started)

    runs: list[EvalRun] = []
    with ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="axmem-eval") as pool:
        futures: list[Future[_Outcome | None]] = [pool.submit(one, c, n) for c, n in plan]
        for future in as_completed(futures):
            outcome = future.result()
            if outcome is None:
                continue
            case, attempt, doc, reason, elapsed = outcome
            if doc is None:
                run = failed_run(case.name, attempt, reason)
            else:
                if writable:
                    sessions.save_session(ws, doc)
                run = run_from_session(case.name, attempt, doc, elapsed)
                if not writable:
                    run = replace(run, session_id=None)  # nowhere to find it later
            runs.append(run)
            report = replace(report, runs=tuple(_ordered(runs, plan)))
            if writable:
                ws.eval_runs.save(report.stored_json())
            if progress is not None:
                progress(
                    EvalProgress(
                        len(runs),
                        len(plan),
                        f"{case.name} · run {attempt}: {run.status}"
                        + (f" ({run.reason})" if run.reason else ""),
                        run,
                    )
                )
    status = "cancelled" if is_cancelled(cancel) else "complete"
    report = replace(report, status=status, finished_at=utc_now())
    if writable:
        ws.eval_runs.save(report.stored_json())
    return report


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _ordered(runs: list[EvalRun], plan: list[tuple[EvalCase, int]]) -> list[EvalRun]:
    order = {(c.name, n): i for i, (c, n) in enumerate(plan)}
    return sorted(runs, key=lambda r: order.get((r.case, r.attempt), len(order)))


# --------------------------------------------------------------------------- results


def list_runs(ws: Workspace, set_name: str | None = None) -> list[dict[str, Any]]:
    return [dict(row.__dict__) for row in ws.eval_runs.list(set_name)]


def list_reports(ws: Workspace, set_name: str | None = None) -> list[EvalReport]:
    """The stored runs (of one set), oldest first; an unreadable stored run is skipped."""
    out = []
    for row in ws.eval_runs.list(set_name):
        data = ws.eval_runs.get(row.id)
        try:
            out.append(report_from_json_value(data, f"eval run '{row.id}'"))
        except AxmemError:
            continue
    return out


def get_run(ws: Workspace, run_id: str) -> EvalReport:
    """A stored eval run; `last` (or `last:SET`) names the latest one."""
    if run_id == "last" or run_id.startswith("last:"):
        rows = ws.eval_runs.list(run_id[5:] or None)
        if not rows:
            raise InputError(f"{ws.path}: no eval run yet")
        run_id = rows[-1].id
    data = ws.eval_runs.get(run_id)
    if data is None:
        raise InputError(f"{ws.path}: no eval run '{run_id}'")
    return report_from_json_value(data, f"eval run '{run_id}'")


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


def sessions_of(ws: Workspace, report: EvalReport) -> list[Session]:
    """The recorded sessions an eval run names (those still in the workspace)."""
    stored = sessions.SessionService(ws)
    found = (stored.find(run.session_id) for run in report.runs if run.session_id)
    return [s for s in found if s is not None]
