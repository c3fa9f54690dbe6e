"""Index the tail of a big catalog in another process while this one indexes the rest.

CPython runs one thread at a time, so on a thread the index of 100,000 memories takes as
long as on the GUI thread (about 2 s of CPU), however many cores the machine has. A child
process builds `SearchIndex(first=k)` of documents k.. and sends back its `part()`, which
`SearchIndex.merge` joins to the index of documents ..k built here meanwhile: the result is
the index `extend` builds (tests/core/ax/test_index_parts.py).

The child is this module, started from the same interpreter (or the same frozen bundle,
`--index-worker`); parent and child talk pickle over its stdin and stdout, nothing else
reads or writes those pipes. Whatever goes wrong in the child (it cannot start, dies, says
something unexpected, takes too long), `PartJob.result` gives None and the caller indexes
those documents itself: the same index, only later.
"""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Mapping
from itertools import accumulate
from pathlib import Path
from typing import BinaryIO

import axmem_gui
from axmem_gui.core.ax.documents import DocumentColumns
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.inverted_index import IndexPart
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.chunked_sort import no_check

#: The first bytes of the child's answer (anything else on its stdout is not an answer).
_MAGIC = b"axmem-index-part-1\n"
#: How often a wait for the child looks whether its job was cancelled.
_POLL_S = 0.05
#: The frozen bundle's argument that makes it this worker (packaging/bundle_main.py).
WORKER_ARGUMENT = "--index-worker"


def worker_command() -> list[str]:
    """How to start the worker: the same interpreter, or the same frozen program."""
    if getattr(sys, "frozen", False):
        return [sys.executable, WORKER_ARGUMENT]
    # -P: the current folder (perhaps a downloaded workspace's) is not put on sys.path.
    # The folder holding this package comes last, for a checkout run without installing
    # it (first, it could shadow the standard library: it may be site-packages).
    root = str(Path(axmem_gui.__file__).resolve().parent.parent)
    return [
        sys.executable,
        "-P",
        "-c",
        "import sys; root = sys.argv.pop(1); root in sys.path or sys.path.append(root)\n"
        "from axmem_gui.services.index_worker import main; raise SystemExit(main())",
        root,
    ]


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class PartJob:
    """One child building one part; `result()` waits for it."""

    def __init__(
        self, command: list[str], request: bytes, first: int, ids: list[str], timeout: float
    ) -> None:
        self._first, self._ids, self._timeout = first, ids, timeout
        self._answer: bytes | None = None
        self.error: str | None = None  # why there is no part (for logs and tests)
        #: What the child said of itself: its CPU time ("cpu_s") and peak memory
        #: ("peak_rss_kb", None where unknown), for the benchmarks.
        self.stats: dict[str, float | None] = {}
        flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)  # Windows: no console flashes up
        # stderr to a file: a pipe nobody reads while the child talks could fill up
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115  (closed by _talk)
        try:
            self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._errors,
                creationflags=flags,
            )
        except OSError as exc:
            self._errors.close()
            self._process = None
            self.error = f"cannot start the index worker: {exc}"
            return
        # Written and read in whole by C loops (the GIL is free during each system call);
        # `communicate` would take the GIL back every 512 bytes.
        self._thread = threading.Thread(
            target=self._talk, args=(request,), name="index-worker", daemon=True
        )
        self._thread.start()

    def _talk(self, request: bytes) -> None:
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        try:
            with process.stdin:
                process.stdin.write(request)
            with process.stdout:
                out = process.stdout.read()
            process.wait()
        except (OSError, ValueError) as exc:  # a child that died early: a broken pipe
            process.kill()
            process.wait()
            out = b""
            self.error = f"index worker: {exc}"
        with self._errors:
            self._errors.seek(0)
            err = self._errors.read(64_000)
        if process.returncode != 0:
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            self.error = f"index worker exited with {process.returncode}: {tail[0]}"
            return
        self._answer = out

    def cancel(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()

    def result(
        self, check: Callable[[], None] = no_check, patience: float | None = None
    ) -> IndexPart | None:
        """The part, once the child is done; None if it gives none (see `error`), or if
        it takes over `patience` seconds (at most the job's timeout). `check` is called
        while waiting: what it raises (a cancelled job) stops the child and is raised."""
        if self._process is None:
            return None
        limit = self._timeout if patience is None else min(patience, self._timeout)
        deadline = time.monotonic() + limit
        try:
            while self._thread.is_alive() and time.monotonic() < deadline:
                self._thread.join(min(_POLL_S, max(deadline - time.monotonic(), 0)))
                check()
        except BaseException:
            self.cancel()
            raise
        if self._thread.is_alive():
            self.cancel()
            self._thread.join()
            self.error = f"index worker took over {limit:.1f} s: stopped"
            return None
        answer = self._answer
        self._answer = None
        if answer is None:
            return None
        if not answer.startswith(_MAGIC):
            self.error = "index worker answered something else than an index part"
            return None
        try:
            part, self.stats = _read_part(memoryview(answer)[len(_MAGIC) :])
        except Exception as exc:  # anything the child could have sent
            self.error = f"index worker sent an unreadable part: {exc}"
            return None
        if not isinstance(part, IndexPart) or part.first != self._first or part.ids != self._ids:
            self.error = "index worker sent the part of other documents"
            return None
        return part


class IndexOffload:
    """Decides when a catalog's index is built partly in a child process, and starts it.

    Only with at least two usable CPUs and `min_chars` of text: below that, starting a
    process and sending the texts costs more than it saves."""

    def __init__(
        self,
        *,
        min_chars: int = 4_000_000,
        share: float = 0.5,
        cpus: int | None = None,
        command: list[str] | None = None,
        timeout: float = 600.0,
    ) -> None:
        self.min_chars = min_chars
        self.share = share
        self.cpus = _usable_cpus() if cpus is None else cpus
        self.command = command
        self.timeout = timeout

    def plan(self, columns: Mapping[str, DocumentColumns]) -> tuple[str, int] | None:
        """Which domain's tail, from which document, a child indexes while this process
        indexes the rest of `columns` (by domain); None: all of it here."""
        if self.cpus < 2 or not columns:
            return None
        chars = {domain: c.chars() for domain, c in columns.items()}
        total = {domain: sum(c) for domain, c in chars.items()}
        biggest = max(total, key=total.__getitem__)
        cut = self.split(chars[biggest], sum(total.values()) - total[biggest])
        return None if cut is None else (biggest, cut)

    def split(self, chars: list[int], other_chars: int) -> int | None:
        """Where to cut documents of these lengths (with `other_chars` more indexed here
        anyway) so that the child's tail is about `share` of all: the first document of
        the tail, or None when building in one process is better."""
        total = sum(chars) + other_chars
        if self.cpus < 2 or total < self.min_chars or not chars:
            return None
        ends = list(accumulate(chars))  # ends[i]: the text of documents 0..i
        # the head: the fewest documents holding what the tail (`share` of all) leaves
        head = ends[-1] - total * self.share
        cut = 0 if head <= 0 else bisect_left(ends, head) + 1
        return cut if cut < len(chars) else None

    def start(self, profile: AxProfile, columns: DocumentColumns, first: int) -> PartJob:
        """Index `columns` (documents from handle `first` on) in a child process."""
        request = pickle.dumps((profile, columns, first), protocol=pickle.HIGHEST_PROTOCOL)
        return PartJob(self.command or worker_command(), request, first, columns.ids, self.timeout)


#: Documents per pickle of a part: each is unpickled in one C call, which holds the GIL
#: (the GUI thread waits meanwhile): a few ms each.
_PIECE = 4096


def _peak_memory_kb() -> int | None:
    """This process's peak resident memory, where the system says (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _write_part(part: IndexPart, out: BinaryIO) -> None:
    """The part as several pickles: the postings, then the documents a piece at a time."""
    stats = {"cpu_s": time.process_time(), "peak_rss_kb": _peak_memory_kb()}
    head = (part.first, len(part.ids), part.terms, part.freqs, part.ones, part.more, stats)
    pickle.dump(head, out, protocol=pickle.HIGHEST_PROTOCOL)
    for start in range(0, len(part.ids), _PIECE):
        piece = slice(start, start + _PIECE)
        pickle.dump(
            (part.ids[piece], part.keys[piece], part.codes[piece]),
            out,
            protocol=pickle.HIGHEST_PROTOCOL,
        )


def _read_part(data: memoryview) -> tuple[IndexPart, dict[str, float | None]]:
    source = io.BytesIO(data)
    first, count, terms, freqs, ones, more, stats = pickle.load(source)
    ids: list[str] = []
    keys: list[bytes] = []
    codes: list[str] = []
    while len(ids) < count:
        some_ids, some_keys, some_codes = pickle.load(source)
        ids += some_ids
        keys += some_keys
        codes += some_codes
    if source.read(1):
        raise ValueError("more than the part")
    return IndexPart(first, ids, keys, codes, terms, freqs, ones, more), stats


def build_part(profile: AxProfile, columns: DocumentColumns, first: int) -> IndexPart:
    index = SearchIndex(Tokenizer(profile), first=first)
    index.extend_columns(columns)
    return index.part()


def main() -> int:
    """The child: a request on stdin, the part on stdout."""
    answer = sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever else prints goes to stderr, not into the answer
    try:
        profile, columns, first = pickle.load(sys.stdin.buffer)
        if not isinstance(profile, AxProfile) or not isinstance(columns, DocumentColumns):
            raise TypeError("not an index request")
        part = build_part(profile, columns, int(first))
    except Exception as exc:  # said on stderr; the parent indexes itself
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    answer.write(_MAGIC)
    _write_part(part, answer)
    answer.flush()
    return 0
