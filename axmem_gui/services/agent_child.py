"""One agent worker process as the runner (services/agent_runner.py) sees it: started
with its stderr kept in a temporary file, a thread reading the frames it writes to its
stdout (services/agent_protocol.py), and the ways it ends: by itself after its answer,
killed, or waited for in the background."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import tempfile
import threading
import time
from typing import Any


class AgentChild:
    """One worker process and the thread that reads what it says: the runner sends it
    its job and takes the frames it streams back from `messages` (None at the end)."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115  (closed in `close`)
        flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)  # Windows: no console flashes up
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            creationflags=flags,
        )
        self.started = time.monotonic()
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        #: Set when the child said it has loaded the engine and waits for its job.
        self.ready = threading.Event()
        self.broken = ""
        self._reader = threading.Thread(target=self._read, name="agent-worker", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        from axmem_gui.services.agent_protocol import READY, FrameError, read_frame

        stdout = self.process.stdout
        assert stdout is not None
        try:
            while (message := read_frame(stdout)) is not None:
                if message.get("type") == READY:
                    self.ready.set()
                    continue
                self.messages.put(message)
        except FrameError as exc:
            self.broken = str(exc)
            self.kill()
        except (OSError, ValueError):
            pass
        self.messages.put(None)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, message: dict[str, Any]) -> bool:
        from axmem_gui.services.agent_protocol import write_frame

        stdin = self.process.stdin
        try:
            assert stdin is not None
            write_frame(stdin, message)
        except (OSError, ValueError):  # it is gone: what it said tells why
            return False
        return True

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()

    def end(self) -> int:
        """Wait for the process (it ends by itself after its answer, or was killed)."""
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            return self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.process.wait()

    def end_later(self) -> None:
        """Let the process end in the background (after its answer it only exits)."""
        threading.Thread(target=self._end_and_close, name="agent-worker-end", daemon=True).start()

    def _end_and_close(self) -> None:
        self.end()
        self.close()

    def stderr_tail(self, lines: int = 6) -> str:
        """What the child said last on stderr: from Python's fatal error report (its
        faulthandler says where a crash happened), else the last lines."""
        try:
            self.errors.seek(0, 2)
            size = self.errors.tell()
            self.errors.seek(max(0, size - 16000))
            text = self.errors.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        said = text.strip().splitlines()
        fatal = [i for i, line in enumerate(said) if line.startswith("Fatal Python error")]
        if fatal:
            return "\n".join(said[fatal[-1] : fatal[-1] + lines])
        return "\n".join(said[-lines:])

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.errors.close()
