"""Running one eval set (`EvalService.run`, services/evals.py): every case and repeat
through the real agent (`sessions.run_agent`, the same path as a live run: axllm, the
Ax-exact search, session recording) on a thread pool of `parallel` workers. Every agent run
is saved as a workspace session and as a run record of the eval; the eval run row is
rewritten after every finished agent run, so a failure, a cancel or a crash keeps
everything done so far. The workspace is only touched from the calling thread (SQLite
connections are not shared between threads).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from axmem_gui.core.cancel import CancelFlag
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.evals.model import EvalCase, EvalSet, check_against
from axmem_gui.core.evals.report import (
    EvalProvider,
    EvalReport,
    EvalRun,
    failed_run,
    run_from_session,
)
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import select_catalog
from axmem_gui.core.session.digest import canonical_json
from axmem_gui.core.session.model import Origin, Session
from axmem_gui.engine.agent_factory import axllm_input_kinds, axllm_input_problem
from axmem_gui.engine.clients import CancelToken, is_cancelled, utc_now
from axmem_gui.services import sessions
from axmem_gui.services.agent_runner import AgentRunner

if TYPE_CHECKING:
    from axmem_gui.core.session.agent_config import AgentConfig
    from axmem_gui.store.workspace import Workspace

#: More agent runs at once than this is a typo (each one is a model conversation).
MAX_PARALLEL = 16


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
    cancel: CancelFlag | None = None,
    progress: Callable[[EvalProgress], None] | None = None,
    transport: Callable[[Mapping[str, Any]], Any] | None = None,
    label: str = "",
    run_id: str | None = None,
    runner: AgentRunner | None = None,
) -> EvalReport:
    """`EvalService.run` on the store the service holds."""
    if repeat is not None and not 1 <= repeat <= 100:
        raise InputError(f"--repeat must be from 1 to 100, got {repeat}")
    if not 1 <= parallel <= MAX_PARALLEL:
        raise InputError(f"parallel runs must be from 1 to {MAX_PARALLEL}, got {parallel}")
    config = sessions.agent_from_workspace(ws, eval_set.agent)
    full = catalog if catalog is not None else ws.catalog()
    agent_catalog = select_catalog(full, config)
    problems = set_problems(eval_set, config, agent_catalog)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(f"eval set '{eval_set.name}': {problems[0]}{more}")
    # A run that cannot start (no model, a bad provider, no key) is refused here, before
    # anything is stored: not recorded as N failed runs of a "complete" eval.
    sessions.check_can_start(settings, transport=transport)
    token = CancelToken()  # the Ax runtime's: also aborts a model call in flight
    if cancel is not None:
        cancel.on_cancel(token.cancel)
    report = EvalReport(
        id=run_id or new_eval_run_id(),
        eval_set=eval_set,
        provider=EvalProvider(settings.provider, settings.model, settings.saved_base_url),
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
        if token.cancelled:
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
                cancel=token,
                transport=transport,
                runner=runner,
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
    status = "cancelled" if is_cancelled(token) else "complete"
    report = replace(report, status=status, finished_at=utc_now())
    if writable:
        ws.eval_runs.save(report.stored_json())
    return report


def set_problems(eval_set: EvalSet, config: AgentConfig, agent_catalog: Catalog) -> list[str]:
    """What stops `eval_set` from running with `config` over `agent_catalog` (its inputs,
    the ids the catalog lacks): checked before any run starts."""
    kinds = axllm_input_kinds(config.signature)
    problems = check_against(
        eval_set,
        config.input_fields,
        [s.id for s in agent_catalog.skills],
        [m.id for m in agent_catalog.memories],
        optional=[name for name, (_json, optional) in kinds.items() if optional],
    )
    for case in eval_set.cases:  # values axllm would refuse (a run would only fail later)
        refused = axllm_input_problem(config.signature, case.inputs)
        if refused and set(case.inputs) <= set(config.input_fields):
            problems.append(f"case '{case.name}': {refused}")
    return problems


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _ordered(runs: list[EvalRun], plan: list[tuple[EvalCase, int]]) -> list[EvalRun]:
    order = {(c.name, n): i for i, (c, n) in enumerate(plan)}
    return sorted(runs, key=lambda r: order.get((r.case, r.attempt), len(order)))
