"""The task-runner job of an eval run: plain data in, an EvalReport out; it opens its own
workspace connection and never touches a widget."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from axmem_gui.core.evals.report import EvalReport
from axmem_gui.engine.clients import CancelToken
from axmem_gui.engine.providers import ProviderSettings
from axmem_gui.services import evals
from axmem_gui.services.agent_runner import AgentRunner
from axmem_gui.services.local_model import LOCAL_PROVIDER, local_label, local_provider
from axmem_gui.services.workspace import open_workspace
from axmem_gui.ui.tasks import Job, JobContext


@dataclass(frozen=True)
class EvalOrder:
    workspace: Path
    set_name: str
    settings: ProviderSettings  # provider "local": start the bundled model for the run
    repeat: int | None = None
    parallel: int = 1


def eval_job(order: EvalOrder, token: CancelToken, agents: AgentRunner) -> Job:
    def job(ctx: JobContext) -> EvalReport:
        with open_workspace(order.workspace) as ws:
            eval_set = evals.get_set(ws, order.set_name)
            if order.settings.provider == LOCAL_PROVIDER:
                ctx.progress(0.0, "starting the bundled local model…")
            with local_provider(order.settings) as resolved:

                def progress(event: evals.EvalProgress) -> None:
                    ctx.progress(
                        event.done / max(1, event.total),
                        f"{event.done} of {event.total} runs · {event.message}",
                    )

                ctx.progress(0.0, "running…")
                return evals.run_eval(
                    ws,
                    eval_set,
                    resolved,
                    repeat=order.repeat,
                    parallel=order.parallel,
                    cancel=token,
                    progress=progress,
                    label=local_label(order.settings),
                    runner=agents,
                )

    return job
