"""A child process that holds a workspace's shared locks for as long as the app has it open.

Why a process: SQLite guards a WAL database with POSIX (fcntl) record locks, and those
belong to the process, not to a descriptor: closing ANY descriptor of the file anywhere
in the process drops every lock the process holds on it. The app cannot make every
library in it respect that (Qt's file dialogs open `default.axmem`, `-wal` and `-shm` to
sniff their type; so do icon providers, thumbnailers, drag and drop), so a lock it holds
itself can vanish at any moment. Another program then believes it is alone: it
reinitialises the `-shm`, or checkpoints and deletes the `-wal` when it closes, and the
app goes on writing into a deleted WAL, or later checkpoints stale pages over that
program's commit (issue 25, measured with /proc/locks).

The holder is a tiny process with one SQLite connection to the workspace and nothing
else: after one read it holds a SHARED lock on the database file and the shared "DMS"
lock on the `-shm`, and no close() in the app can drop locks of another process. While
it lives, nobody can get the EXCLUSIVE lock that deleting the WAL or reinitialising the
shared memory needs, the app's own close included; the holder closes last and does the
final checkpoint with the real WAL, as the last connection always does.

It never outlives the app: it exits when its stdin reaches end of file, which the kernel
arranges when the app exits in any way (kill -9 included). On Linux PR_SET_PDEATHSIG is a
second bell; the handler checks that the parent really is gone (the signal also fires
when the *thread* that started the child exits).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

#: The frozen bundle's argument that makes it a lock holder (packaging/bundle_main.py).
HOLDER_ARGUMENT = "--lock-holder"
#: What the child prints once it holds the locks.
READY = b"axmem-lock-holder ready\n"
#: How long `start` waits for the child to hold the locks.
START_TIMEOUT_S = 10.0
#: How long `stop` waits for the child's final checkpoint before leaving it to finish alone.
STOP_TIMEOUT_S = 10.0

#: The child, complete: standard library only, so it starts in milliseconds (`python -I
#: -S`) and imports nothing of the app. argv: database path, parent pid.
CHILD_SOURCE = r"""
import os, signal, sqlite3, sys, time

def main(path, parent):
    def parent_gone(_signum, _frame):
        if os.getppid() != parent:  # really orphaned (not just the spawning thread's exit)
            raise SystemExit(0)
    signal.signal(signal.SIGTERM, parent_gone)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)
        except Exception:
            pass  # stdin's end of file is the main signal anyway
    if os.getppid() != parent:
        return 0
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            sys.stderr.write("not a WAL database: " + str(mode) + "\n")
            return 3
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        sys.stdout.buffer.write(b"axmem-lock-holder ready\n")
        sys.stdout.flush()
        while sys.stdin.buffer.read(65536):
            pass
    finally:
        conn.close()
        if os.getppid() != parent:  # the app died (a normal stop leaves others alone)
            settle(path)
    return 0

def settle(path):
    # A killed app's file locks can still be going away when its pipe says end of file:
    # then the close above found another connection and left the WAL. The last
    # connection's checkpoint is ours to do: open, read, close again until it is done.
    for _ in range(100):
        if not os.path.exists(path + "-wal"):
            return
        time.sleep(0.01)
        try:
            again = sqlite3.connect(path, isolation_level=None, timeout=1)
            try:
                again.execute("PRAGMA trusted_schema = OFF")
                again.execute("SELECT count(*) FROM sqlite_master").fetchone()
            finally:
                again.close()
        except sqlite3.Error:
            pass

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], int(sys.argv[2])))
"""


def child_main(argv: list[str]) -> int:
    """The frozen bundle's entry point (`--lock-holder PATH PARENT_PID`)."""
    namespace: dict[str, object] = {"__name__": "axmem_lock_holder"}
    exec(compile(CHILD_SOURCE, "<axmem lock holder>", "exec"), namespace)
    main = namespace["main"]
    assert callable(main)
    return int(main(argv[0], int(argv[1])))


def holder_command(path: Path) -> list[str]:
    args = [str(path), str(os.getpid())]
    if getattr(sys, "frozen", False):
        return [sys.executable, HOLDER_ARGUMENT, *args]
    # -I: no user site, no PYTHON* variables, no current folder on sys.path; -S: no
    # site-packages (nothing there is needed, and starting is faster).
    return [sys.executable, "-I", "-S", "-c", CHILD_SOURCE, *args]


class LockHolderError(Exception):
    """The holder could not be started (the message says why)."""


class LockHolder:
    """One holder process for one workspace file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._process: subprocess.Popen[bytes] | None = None
        self._ready = False
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def spawn(self) -> None:
        """Start the child unless it runs; does not wait for it (see `ensure`)."""
        with self._lock:
            self._spawn()

    def ensure(self, timeout: float = START_TIMEOUT_S) -> None:
        """Make sure a child holds the locks: start one if there is none (or it died),
        and wait until it says it holds them. Raises LockHolderError."""
        with self._lock:
            self._spawn()
            if self._ready:
                return
            process = self._process
            assert process is not None
            try:
                self._await_ready(process, timeout)
            except LockHolderError:
                self._kill()
                raise
            self._ready = True

    def _spawn(self) -> None:
        if self._process is not None and self._process.poll() is None:
            return
        self._kill()  # a child that died: forget it, its pipes closed
        flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)
        try:
            self._process = subprocess.Popen(
                holder_command(self.path),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                creationflags=flags,
            )
        except OSError as exc:
            raise LockHolderError(f"cannot start the lock holder: {exc}") from None
        self._ready = False

    @staticmethod
    def _await_ready(process: subprocess.Popen[bytes], timeout: float) -> None:
        assert process.stdout is not None and process.stderr is not None
        deadline = time.monotonic() + timeout
        answer = b""
        fd = process.stdout.fileno()
        while not answer.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise LockHolderError("the lock holder did not start in time")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 256)
            if not chunk:
                err = process.stderr.read(2000).decode("utf-8", "replace").strip()
                raise LockHolderError(f"the lock holder stopped: {err or 'no message'}")
            answer += chunk
        if answer != READY:
            raise LockHolderError(f"the lock holder said {answer[:80]!r}")

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Let the child go: it closes its connection (the final checkpoint when it is the
        last one) and exits. Waits up to `timeout`, then leaves it to finish alone."""
        with self._lock:
            process, self._process = self._process, None
            self._ready = False
        if process is None:
            return
        with contextlib.suppress(OSError, ValueError):
            assert process.stdin is not None
            process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _kill(self) -> None:
        process, self._process = self._process, None
        self._ready = False
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(OSError):
                process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
