"""Agent runs in a child process: whatever the model's code does there, this process
lives on (docs/design.md, pattern 13).

`AgentRunner` starts the child (services.agent_worker: the same interpreter, or the frozen
bundle with `--agent-worker`), hands it one job and reads what it streams back: each
finished model call, each finished forward, when the model's code runs, progress, and at
the end the session or the replay report. It watches the child the whole time:

* Cancel asks the child to stop (it does within milliseconds, and records a proper
  cancelled session); a child that does not end within `Deadlines.cancel_grace_s` is
  killed.
* A child silent past its deadline is killed: the model's code past its own CPU limit by
  a margin, once the child has had twice that CPU (a native loop the runtime cannot
  interrupt; on a busy machine the cage's own limit may simply not have come yet), a
  model call past the provider's
  timeouts and retries, anything else after `Deadlines.idle_s`.
* A child that dies (a segfault of the runtime, an abort, MemoryError) or is killed ends
  the run with a clear error on the session (kind, signal, the call it was in), and every
  call it finished is kept: the session is rebuilt from what it streamed.

One child per run, never reused; with `keep_warm` the next one is started when a run ends
(and loads the engine, about a second of CPU, while the user looks at the result), so a
run rarely waits for it.
The API key travels in the job, over the pipe: never in the command line.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import axmem_gui
from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.session.progress import CancelLike, ProgressCallback, RunProgress
from axmem_gui.services.agent_child import AgentChild

if TYPE_CHECKING:
    # (the window holds a runner from its start: the session code loads with the first run)
    from axmem_gui.core.session.code_limits import CodeLimits
    from axmem_gui.core.session.model import Session
    from axmem_gui.core.session.replay_check import ReplayReport
    from axmem_gui.services.agent_protocol import LiveJob, ReplayJob

#: The frozen bundle's argument that makes it the agent worker (packaging/bundle_main.py).
WORKER_ARGUMENT = "--agent-worker"
#: How often the watch looks at the cancel token and the deadlines.
_POLL_S = 0.05


@contextlib.contextmanager
def child_runs() -> Iterator[AgentRunner]:
    """A runner for one command (the CLI): its child starts loading the engine at once,
    while the command reads its files."""
    runner = AgentRunner(keep_warm=False)
    runner.prewarm()
    try:
        yield runner
    finally:
        runner.shutdown()


class AgentRunFailed(AxmemError):
    """The child process of a run or replay ended without an answer (crashed, killed)."""


def worker_command() -> list[str]:
    """How to start the worker: the same interpreter, or the same frozen program."""
    if getattr(sys, "frozen", False):
        return [sys.executable, WORKER_ARGUMENT]
    # -P: the current folder (perhaps a downloaded session's) is not put on sys.path.
    root = str(Path(axmem_gui.__file__).resolve().parent.parent)
    return [
        sys.executable,
        "-P",
        "-c",
        "import sys; root = sys.argv.pop(1); root in sys.path or sys.path.append(root)\n"
        "from axmem_gui.services.agent_worker import main; raise SystemExit(main())",
        root,
    ]


@dataclass(frozen=True)
class Deadlines:
    """How long a child may be silent, by what it last said it was doing."""

    #: The model's code: its CPU limit times this, plus the grace, of wall time.
    code_factor: float = 3.0
    code_grace_s: float = 10.0
    #: ... or, while the child has not had the CPU to reach its limit, this many times that.
    code_cap_factor: float = 4.0
    #: A model call: the provider's deadline for each attempt and its waits, plus this.
    call_grace_s: float = 30.0
    #: Anything else (the engine between calls, starting up).
    idle_s: float = 300.0
    #: A cancelled child that has not ended by itself after this is killed.
    cancel_grace_s: float = 0.5


@dataclass
class _Watch:
    """What the child is doing, from what it said; when it is overdue."""

    deadlines: Deadlines
    code_limit_s: float
    call_budget_s: float
    phase: str = "starting"  # starting | engine | call | code
    since: float = 0.0
    calls: int = 0  # finished model calls
    stage: str | None = None  # of the call in flight, or of the last one
    pid: int = 0  # the child's
    cpu_since: float | None = None  # the child's CPU time when its code started

    def enter(self, phase: str) -> None:
        self.phase, self.since = phase, time.monotonic()
        self.cpu_since = _cpu_s(self.pid) if phase == "code" else None

    def budget(self) -> float:
        d = self.deadlines
        if self.phase == "code":
            return self.code_limit_s * d.code_factor + d.code_grace_s
        if self.phase == "call":
            return self.call_budget_s + d.call_grace_s
        return d.idle_s

    def overdue(self) -> bool:
        late = time.monotonic() - self.since - self.budget()
        if late <= 0 or self.phase != "code":
            return late > 0
        # The code's limit is CPU time: on a busy machine the child may not have had it
        # yet, and the cage then stops the code itself. Stopped here once the child had
        # twice that CPU (a native loop the cage cannot reach), or long past the deadline.
        used = _cpu_s(self.pid)
        if used is None or self.cpu_since is None:
            return True
        cap = (self.deadlines.code_cap_factor - 1) * self.budget()
        return used - self.cpu_since > 2 * self.code_limit_s or late > cap

    def where(self) -> str:
        if self.phase == "code" and self.calls:
            return f"while running the model's code of call #{self.calls - 1}"
        if self.phase == "code":
            return "while running the model's code"
        if self.phase == "call":
            stage = f" ({self.stage})" if self.stage else ""
            return f"during model call #{self.calls}{stage}"
        if self.calls:
            return f"after model call #{self.calls - 1}"
        return "before its first model call"

    def call_index(self) -> int | None:
        if self.phase == "call":
            return self.calls
        return self.calls - 1 if self.calls else None


@dataclass
class _Outcome:
    """How a child's run ended: its answer, or why there is none."""

    result: dict[str, Any] | None = None
    error: tuple[str, str] | None = None  # (class name, message) the child raised
    kind: str = ""  # crashed | killed | cancelled (when there is no answer)
    how: str = ""  # the signal or exit code; "stuck"
    message: str = ""
    detail: str = ""
    call_index: int | None = None  # the call it was in (or whose code ran)


def _cpu_s(pid: int) -> float | None:
    """The CPU time process `pid` has used (Linux's /proc); None where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _exit_how(code: int) -> str:
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


_WHAT_SIGNALS = {
    "SIGSEGV": "a crash of the JavaScript runtime or the engine",
    "SIGABRT": "an abort",
    "SIGKILL": "killed, perhaps by the system for memory",
    "SIGBUS": "a crash of the JavaScript runtime or the engine",
}


class AgentRunner:
    """Starts agent runs and replays in child processes (see the module docstring).
    Thread-safe: the GUI may run several at once, each from its own job thread."""

    def __init__(
        self,
        command: list[str] | None = None,
        *,
        deadlines: Deadlines | None = None,
        keep_warm: bool = True,
    ) -> None:
        self.command = command or worker_command()
        self.deadlines = deadlines or Deadlines()
        self.keep_warm = keep_warm
        self._lock = threading.Lock()
        self._warm: AgentChild | None = None
        self._closed = False

    # -- the warm child

    def prewarm(self) -> None:
        """Start the next run's child now, if none is waiting (it loads the engine)."""
        with self._lock:
            if self._closed or (self._warm is not None and self._warm.alive):
                return
            old, self._warm = self._warm, AgentChild(self.command)
        if old is not None:
            old.close()

    def wait_warm(self, timeout: float | None = None) -> bool:
        """Wait until the warm child has loaded the engine (False: none, or not in time)."""
        with self._lock:
            child = self._warm
        return child is not None and child.ready.wait(timeout)

    def _take(self) -> AgentChild:
        with self._lock:
            if self._closed:
                raise AgentRunFailed("the agent runner was shut down")
            child, self._warm = self._warm, None
        if child is None or not child.alive or child.command != self.command:
            if child is not None:  # gone, or started for another command: not this run's
                child.kill()
                child.end()
                child.close()
            child = AgentChild(self.command)
        return child

    def shutdown(self) -> None:
        """Stop the warm child; no run starts after this."""
        with self._lock:
            self._closed = True
            child, self._warm = self._warm, None
        if child is not None:
            child.kill()
            child.end()
            child.close()

    # -- runs

    def run_live(
        self,
        job: LiveJob,
        *,
        cancel: CancelLike = None,
        progress: ProgressCallback | None = None,
        secrets: tuple[str, ...] = (),
    ) -> Session:
        """Record `job` in a child; the session, or the partial one it left (every
        finished call kept, the error saying what happened to the process)."""
        from axmem_gui.core.session.code_limits import CodeLimits
        from axmem_gui.core.session.format import parse_session
        from axmem_gui.core.session.redact import scrub_secrets

        settings = job.settings
        call_budget = settings.timeout_s * (settings.max_retries + 1) + (
            settings.retry_max_wait_s * settings.max_retries
        )
        limits = job.limits or CodeLimits()
        streamed = _Streamed()
        outcome = self._drive(job.to_json(), limits, call_budget, cancel, progress, streamed.take)
        if outcome.result is not None:
            return parse_session(outcome.result.get("session"), f"session {job.session_id}")
        if outcome.error is not None:
            raise _raised(*outcome.error)
        if streamed.head is None:
            raise AgentRunFailed(f"{outcome.message}; it recorded nothing")
        from axmem_gui.services.agent_partial import partial_session  # (the engine's)

        return partial_session(
            streamed.head,
            streamed.exchanges,
            streamed.forwards,
            job,
            {
                "kind": outcome.kind,
                "type": outcome.how,
                "message": outcome.message,
                "detail": scrub_secrets(outcome.detail, secrets),
                "call_index": outcome.call_index,
            },
            secrets,
        )

    def run_replay(
        self,
        job: ReplayJob,
        *,
        limits: CodeLimits,
        cancel: CancelLike = None,
        progress: ProgressCallback | None = None,
    ) -> ReplayReport:
        """Replay in a child; its report, or AgentRunFailed saying what became of it."""
        from axmem_gui.core.session.replay_check import report_from_json
        from axmem_gui.engine.replay import ReplayRefused

        outcome = self._drive(job.to_json(), limits, 30.0, cancel, progress, _ignore)
        if outcome.result is not None:
            try:
                return report_from_json(outcome.result.get("report"))
            except ValueError as exc:
                raise AgentRunFailed(f"the replay's process sent a broken report: {exc}") from None
        if outcome.error is not None:
            raise _raised(*outcome.error)
        if outcome.kind == "cancelled":
            raise ReplayRefused("the replay was cancelled")
        raise AgentRunFailed(outcome.message.replace("agent run", "replay", 1))

    def _drive(
        self,
        job: dict[str, Any],
        limits: CodeLimits,
        call_budget: float,
        cancel: CancelLike,
        progress: ProgressCallback | None,
        take: Any,
    ) -> _Outcome:
        child = self._take()
        watch = _Watch(self.deadlines, limits.time_s, call_budget, pid=child.process.pid)
        watch.enter("starting")
        try:
            child.send(job)
            outcome = self._watch(child, watch, cancel, progress, take)
        except BaseException:
            child.kill()
            child.end()
            child.close()
            raise
        finally:
            if self.keep_warm:
                # The next run's child loads now (while it loaded during this run, the two
                # took turns on a small machine's CPUs: the run took longer).
                self.prewarm()
        if outcome.result is not None or outcome.error is not None:
            child.end_later()  # (it exits by itself: not on this run's time)
        else:
            child.close()
        outcome.call_index = watch.call_index()
        return outcome

    def _watch(
        self,
        child: AgentChild,
        watch: _Watch,
        cancel: CancelLike,
        progress: ProgressCallback | None,
        take: Any,
    ) -> _Outcome:
        from axmem_gui.services import agent_protocol as p

        cancel_by: float | None = None
        while True:
            if cancel_by is None and _cancelled(cancel):
                child.send({"type": p.CANCEL})
                cancel_by = time.monotonic() + self.deadlines.cancel_grace_s
            if cancel_by is not None and time.monotonic() > cancel_by:
                child.kill()
                child.end()
                return _Outcome(
                    kind="cancelled",
                    how="cancelled",
                    message=f"the run was cancelled; its process did not stop by itself within "
                    f"{self.deadlines.cancel_grace_s:g} s and was stopped {watch.where()}",
                )
            if cancel_by is None and watch.overdue():
                child.kill()
                child.end()
                return self._stuck(watch)
            try:
                message = child.messages.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            if message is None:
                return self._ended(child, watch, cancel_by is not None)
            kind = message.get("type")
            if kind == p.RESULT:
                return _Outcome(result=message)
            if kind == p.ERROR:
                return _Outcome(
                    error=(str(message.get("error")), str(message.get("message") or ""))
                )
            if kind == p.CODE:
                watch.enter("code" if message.get("running") is True else "engine")
            elif kind == p.PROGRESS:
                event = _progress_event(message.get("event"))
                if event is not None:
                    _follow(watch, event)
                    if progress is not None:
                        progress(event)
            else:
                if kind == p.EXCHANGE and watch.phase == "starting":
                    watch.enter("engine")
                take(message)

    def _stuck(self, watch: _Watch) -> _Outcome:
        seconds = time.monotonic() - watch.since
        why = ""
        if watch.phase == "code":
            why = (
                f" (the code ran past its {watch.code_limit_s:g} s limit where the runtime "
                "cannot stop it, such as a catastrophic regular expression)"
            )
        return _Outcome(
            kind="killed",
            how="stuck",
            message=f"the agent run's process was stopped: nothing happened for "
            f"{seconds:.0f} s {watch.where()}{why}",
        )

    def _ended(self, child: AgentChild, watch: _Watch, cancelled: bool) -> _Outcome:
        code = child.end()
        how = _exit_how(code) if not child.broken else "broken stream"
        if cancelled:
            return _Outcome(kind="cancelled", how=how, message="the run was cancelled")
        what = _WHAT_SIGNALS.get(how, "")
        detail = child.stderr_tail()
        said = f"{how}: {what}" if what else how
        if child.broken:
            said = f"it sent something that is not a message: {child.broken}"
        return _Outcome(
            kind="crashed",
            how=how,
            message=f"the agent run's process crashed ({said}) {watch.where()}",
            detail=detail,
        )


def _follow(watch: _Watch, event: RunProgress) -> None:
    if event.kind == "call_started":
        watch.stage = event.stage
        watch.enter("call")
    elif event.kind == "call_finished":
        watch.calls = event.calls
        watch.enter("engine")
    elif watch.phase != "code":
        watch.enter("engine")


def _progress_event(value: Any) -> RunProgress | None:
    if not isinstance(value, dict):
        return None
    try:
        return RunProgress(
            kind=str(value["kind"]),
            forward=int(value["forward"]),
            forwards=int(value["forwards"]),
            calls=int(value["calls"]),
            stage=None if value.get("stage") is None else str(value["stage"]),
            message=str(value.get("message") or ""),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _cancelled(cancel: CancelLike) -> bool:
    if cancel is None:
        return False
    if callable(cancel) and not hasattr(cancel, "cancelled"):
        return bool(cancel())
    return bool(getattr(cancel, "cancelled", False))


def _raised(name: str, message: str) -> AxmemError:
    from axmem_gui.engine.replay import ReplayRefused

    if name == "ReplayRefused":
        return ReplayRefused(message)
    if name == "InputError":
        return InputError(message)
    if name == "MemoryError":
        return AgentRunFailed("the agent run's process ran out of memory (MemoryError)")
    return AgentRunFailed(message or name)


def _ignore(_message: dict[str, Any]) -> None:
    pass


class _Streamed:
    """What a live run's child streamed: the session's head, finished calls and forwards."""

    def __init__(self) -> None:
        self.head: dict[str, Any] | None = None
        self.exchanges: list[dict[str, Any]] = []
        self.forwards: list[dict[str, Any]] = []

    def take(self, message: dict[str, Any]) -> None:
        from axmem_gui.services import agent_protocol as p

        kind = message.get("type")
        value = message.get(
            {p.BEGUN: "head", p.EXCHANGE: "record", p.FORWARD: "forward"}.get(str(kind), "")
        )
        if not isinstance(value, dict):
            return
        if kind == p.BEGUN:
            self.head = value
        elif kind == p.EXCHANGE:
            self.exchanges.append(value)
        elif kind == p.FORWARD:
            self.forwards.append(value)
