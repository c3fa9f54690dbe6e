"""Reading input files defensively: size limits checked before reading, no blocking on
FIFOs or devices, binary and non-UTF-8 files refused with a message naming the file.

These are the only functions in `core/formats` that touch the file system, and only to
read the paths they are given."""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from axmem_gui.core.filehandles import close_unless_held

MIB = 1024 * 1024
GIB = 1024 * MIB
#: How much a read takes at a time (then reports progress, and may be cancelled).
CHUNK_BYTES = 4 * MIB

#: Called as (done, total) while a file or a folder is read; raising from it stops the
#: read (a cancel). Units are bytes for a file, skill folders for a folder.
ReadProgress = Callable[[int, int], None]


@dataclass(frozen=True)
class ReadLimits:
    """Guards against inputs that would exhaust memory or never end. They are also what
    every export may write (`check_export_*`): whatever the app exports, it imports back,
    and an export that would not is refused with the message the import would give."""

    #: Largest single file (catalog file, SKILL.md or resource).
    max_file_bytes: int = 1 * GIB
    #: Largest sum of file sizes read for one source path (a skills folder with resources).
    max_total_bytes: int = 1 * GIB
    #: Deepest folder nesting followed under a skills folder.
    max_depth: int = 24
    #: Most files read for one source path.
    max_files: int = 1_000_000


class ReadFailure(Exception):
    """A file could not be read; the message is meant for the user (without the path)."""


def describe_os_error(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop (too many levels of symbolic links)"
    if isinstance(exc, FileNotFoundError):
        return "not found (or a broken symlink)"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return f"cannot read: {exc.strerror or exc}"


def human_size(n: int) -> str:
    """`1 GiB`, `16.5 MiB`, `2.1 KiB`, `12 bytes` (whole units without a decimal)."""
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", 1024)):
        if n >= size:
            return f"{n // size} {unit}" if n % size == 0 else f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def stat_regular_file(path: Path) -> os.stat_result:
    """stat (following symlinks) and insist on a regular file: reading a FIFO or a device
    would block or never end."""
    try:
        st = path.stat()
    except OSError as exc:
        raise ReadFailure(describe_os_error(exc)) from None
    _require_regular(st)
    return st


def _require_regular(st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise ReadFailure("is a folder, expected a file")
    if not stat.S_ISREG(st.st_mode):
        raise ReadFailure(f"not a regular file: a {file_kind(st.st_mode)}")


def file_kind(mode: int) -> str:
    """'symlink', 'FIFO', 'socket', 'device', 'folder' or 'file', for messages."""
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISDIR(mode):
        return "folder"
    return "file"


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def too_large(size: int, limit: int) -> str:
    """The message for a file over the size limit (the import's and the export's)."""
    return f"file is too large ({human_size(size)}; the limit is {human_size(limit)})"


def read_bytes_limited(
    path: Path,
    max_bytes: int,
    *,
    follow_symlinks: bool = True,
    expect: os.stat_result | None = None,
    progress: ReadProgress | None = None,
) -> bytes:
    """The bytes of a regular file, refusing before reading when it is larger than
    `max_bytes` (and again while reading, in case it grows).

    The file is opened without blocking (a FIFO or device never hangs the caller) and
    checked through the open descriptor, so what is read is what was checked. Without
    `follow_symlinks` a symlink is refused; with `expect` (an lstat result) the opened
    file must be that same file (no swap between the check and the read)."""
    data = _read_limited(path, max_bytes, follow_symlinks, expect, progress)
    return bytes(data)


@contextmanager
def _open_regular(
    path: Path, max_bytes: int, follow_symlinks: bool, expect: os.stat_result | None
) -> Iterator[tuple[io.FileIO, int]]:
    """The file, opened without blocking (a FIFO or device never hangs the caller) and
    checked through the open descriptor (so what is read is what was checked), and its
    size; refused before reading when larger than `max_bytes`."""
    flags = _OPEN_FLAGS | (0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise ReadFailure("is a symlink (not followed)") from None
        if exc.errno == errno.ENXIO:
            raise ReadFailure("not a regular file: a socket or device") from None
        raise ReadFailure(describe_os_error(exc)) from None
    try:
        st = os.fstat(fd)
        _require_regular(st)
        if expect is not None and (st.st_dev, st.st_ino) != (expect.st_dev, expect.st_ino):
            raise ReadFailure("the file changed while it was being read")
        if st.st_size > max_bytes:
            raise ReadFailure(too_large(st.st_size, max_bytes))
        os.set_blocking(fd, True)
        with io.FileIO(fd, "rb", closefd=False) as f:
            yield f, st.st_size
    except OSError as exc:
        raise ReadFailure(describe_os_error(exc)) from None
    finally:
        close_unless_held(fd)  # never drops our SQLite locks on an open workspace


def _grew(max_bytes: int, done: int) -> ReadFailure:
    if done >= max_bytes:
        return ReadFailure(f"file grew beyond the limit of {human_size(max_bytes)} while reading")
    return ReadFailure("the file changed while it was being read")


def _read_limited(
    path: Path,
    max_bytes: int,
    follow_symlinks: bool,
    expect: os.stat_result | None,
    progress: ReadProgress | None,
) -> bytearray:
    """The file into one buffer of its size, a chunk at a time (progress, cancel): memory
    is the file's size once, not a list of chunks and their join."""
    with _open_regular(path, max_bytes, follow_symlinks, expect) as (f, size):
        data = bytearray(size)
        view = memoryview(data)
        done = 0
        while done < size:
            n = f.readinto(view[done : done + CHUNK_BYTES])
            if not n:
                break
            done += n
            if progress is not None:
                progress(done, size)
        view.release()
        del data[done:]  # shrank while reading
        if f.read(1):
            raise _grew(max_bytes, done)
    return data


def iter_text_lines(
    path: Path, max_bytes: int, *, progress: ReadProgress | None = None
) -> Iterator[str]:
    """The file's lines (split on LF only, without it), decoded one at a time: a big
    JSON Lines file is read in bounded memory. Refuses what `decode_text` refuses, with
    the same messages (NUL byte, invalid UTF-8 with its offset and line)."""
    with _open_regular(path, max_bytes, True, None) as (f, size):
        done = 0
        reported = 0
        reader = io.BufferedReader(f, CHUNK_BYTES)
        for number, raw in enumerate(reader, start=1):
            line = raw[:-1] if raw.endswith(b"\n") else raw
            if number == 1:
                line = line.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark
                done += len(raw) - len(line) - raw.endswith(b"\n")
            nul = line.find(b"\0")
            if nul >= 0:
                raise ReadFailure(f"looks like a binary file (NUL byte at offset {done + nul})")
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ReadFailure(
                    f"not valid UTF-8 (byte offset {done + exc.start}, line {number})"
                ) from None
            done += len(line) + raw.endswith(b"\n")
            if done > max_bytes:
                raise _grew(max_bytes, done)
            if progress is not None and (done - reported >= CHUNK_BYTES or done >= size):
                reported = done
                progress(min(done, size), size)
            yield text


def decode_text(data: bytes | bytearray) -> str:
    """UTF-8 text, refusing binary data (NUL bytes) and invalid UTF-8 with the position."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise ReadFailure(f"looks like a binary file (NUL byte at offset {nul})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReadFailure(f"not valid UTF-8 (byte offset {exc.start}, line {line})") from None


def read_text_limited(
    path: Path,
    max_bytes: int,
    *,
    follow_symlinks: bool = True,
    expect: os.stat_result | None = None,
    progress: ReadProgress | None = None,
) -> str:
    # Decoded straight from the read buffer, which goes at once: the file's bytes and its
    # text are never held twice over.
    return decode_text(_read_limited(path, max_bytes, follow_symlinks, expect, progress))


def is_executable(st: os.stat_result) -> bool:
    return bool(st.st_mode & stat.S_IXUSR)
