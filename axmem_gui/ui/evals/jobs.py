"""The task-runner job of an eval run: plain data in (the workspace's address, the set's
name, the provider, a cancel flag), an EvalReport out. The evals service opens the
workspace on the job's thread; the job never touches a widget."""

from __future__ import annotations

from dataclasses import dataclass

from axmem_gui.core.cancel import CancelFlag
from axmem_gui.core.evals.report import EvalReport
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.services import evals
from axmem_gui.services.agent_runner import AgentRunner
from axmem_gui.services.aggregates import WorkspaceAddress
from axmem_gui.services.local_model import LOCAL_PROVIDER, local_label, local_provider
from axmem_gui.ui.tasks import Job, JobContext


@dataclass(frozen=True, slots=True)
class EvalOrder:
    workspace: WorkspaceAddress
    set_name: str
    settings: ProviderSettings  # provider "local": start the bundled model for the run
    repeat: int | None = None
    parallel: int = 1


def eval_job(order: EvalOrder, cancel: CancelFlag, agents: AgentRunner) -> Job:
    def job(ctx: JobContext) -> EvalReport:
        if order.settings.provider == LOCAL_PROVIDER:
            ctx.progress(0.0, "starting the bundled local model…")
        with local_provider(order.settings) as resolved:

            def progress(event: evals.EvalProgress) -> None:
                ctx.progress(
                    event.done / max(1, event.total),
                    f"{event.done} of {event.total} runs · {event.message}",
                )

            ctx.progress(0.0, "running…")
            return evals.run_eval_at(
                order.workspace,
                order.set_name,
                resolved,
                repeat=order.repeat,
                parallel=order.parallel,
                cancel=cancel,
                progress=progress,
                label=local_label(order.settings),
                runner=agents,
            )

    return job
