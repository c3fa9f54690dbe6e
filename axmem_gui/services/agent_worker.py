"""The child process an agent run happens in (services.agent_runner starts it; the frozen
bundle is this module with `--agent-worker`).

It loads the engine (axllm, QuickJS) first and says `ready`, so a runner can start it
ahead of the run it will do; then it reads one job from stdin, does it, and streams what
happens to stdout as it happens: each finished model call, each finished forward, when
the model's code starts and stops running, progress; at the end the session or the replay
report. Then it exits: one process per run, nothing carried over to the next.

Whatever the model's code does to this process (a crash of the runtime, memory, a native
loop no limit reaches) ends here: the parent keeps what was streamed and says what
happened. Messages: services.agent_protocol.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
from typing import Any, BinaryIO

#: What this process may take in all (the QuickJS heap has its own, smaller, limit): a
#: Python-side blow-up fails here with MemoryError instead of pressing the machine.
MEMORY_CAP_BYTES = 6 * 1024**3


class _Writer:
    """The protocol stream (the real stdout; `print` goes to stderr)."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        from axmem_gui.services.agent_protocol import write_frame

        with self._lock:
            write_frame(self._out, message)


def _take_stdout() -> BinaryIO:
    """The protocol's stream; what else writes to fd 1 (a library, print) goes to stderr."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def _cap_memory() -> None:
    try:
        import resource
    except ImportError:  # not on this system
        return
    for limit in ("RLIMIT_DATA", "RLIMIT_AS"):
        which = getattr(resource, limit, None)
        if which is None:
            continue
        try:
            _soft, hard = resource.getrlimit(which)
            cap = MEMORY_CAP_BYTES
            if hard != resource.RLIM_INFINITY:
                cap = min(hard, cap)
            resource.setrlimit(which, (cap, hard))
        except (ValueError, OSError):
            continue
        return


def _listen(source: BinaryIO, cancel: Any) -> None:
    """The parent's cancel (or its end: stdin closes) cancels the run."""
    from axmem_gui.services.agent_protocol import CANCEL, FrameError, read_frame

    try:
        while (message := read_frame(source)) is not None:
            if message.get("type") == CANCEL:
                break
    except (FrameError, OSError, ValueError):
        pass
    cancel.cancel()


def main() -> int:
    out = _take_stdout()
    faulthandler.enable()  # a crash prints where it happened to stderr (the parent reads it)
    _cap_memory()
    # What every run needs, loaded before the job comes (a warm child skips this wait).
    from axmem_gui.core.session.format import parse_session, session_to_json
    from axmem_gui.core.session.progress import RunProgress
    from axmem_gui.engine.clients import CancelToken
    from axmem_gui.engine.recorder import RunTaps
    from axmem_gui.engine.replay import replay_session
    from axmem_gui.services import agent_protocol as p
    from axmem_gui.services.sessions import record_live

    writer = _Writer(out)
    writer.send({"type": p.READY, "pid": os.getpid()})
    source = sys.stdin.buffer
    try:
        message = p.read_frame(source)
    except p.FrameError as exc:
        print(f"agent worker: {exc}", file=sys.stderr)
        return 2
    if message is None or message.get("type") != p.JOB:
        return 0  # a warm child nobody needed
    token = CancelToken()
    threading.Thread(target=_listen, args=(source, token), daemon=True).start()
    kind = message.get("kind")

    def code(running: bool) -> None:
        writer.send({"type": p.CODE, "running": running})

    def progress(event: RunProgress) -> None:
        writer.send({"type": p.PROGRESS, "event": event.__dict__})

    try:
        if kind == "live":
            job = p.LiveJob.from_json(message)
            taps = RunTaps(
                begun=lambda head: writer.send({"type": p.BEGUN, "head": head.to_json()}),
                exchange=lambda record: writer.send({"type": p.EXCHANGE, "record": record}),
                forward=lambda fw: writer.send({"type": p.FORWARD, "forward": fw.to_json()}),
                code=code,
            )
            session = record_live(job, cancel=token, progress=progress, taps=taps)
            writer.send({"type": p.RESULT, "session": session_to_json(session)})
        elif kind == "replay":
            replay_job = p.ReplayJob.from_json(message)
            report = replay_session(
                parse_session(replay_job.session, "the replayed session"),
                cancel=token,
                progress=progress,
                clock_ms=replay_job.clock_ms,
                on_code=code,
            )
            writer.send({"type": p.RESULT, "report": report.to_json()})
        else:
            raise ValueError(f"unknown job {kind!r}")
    except Exception as exc:  # said to the parent, which raises it there
        writer.send({"type": p.ERROR, "error": type(exc).__name__, "message": str(exc)})
        _exit(1)
    _exit(0)
    return 0


def _exit(code: int) -> None:
    """Leave now: tearing the interpreter down (the engine, QuickJS's heap) takes longer
    than the run's answer, and the parent waits for nothing else."""
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    raise SystemExit(main())
