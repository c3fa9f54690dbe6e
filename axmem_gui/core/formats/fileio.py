"""Reading input files defensively: size limits checked before reading, no blocking on
FIFOs or devices, binary and non-UTF-8 files refused with a message naming the file.

These are the only functions in `core/formats` that touch the file system, and only to
read the paths they are given."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from axmem_gui.core.filehandles import close_unless_held

MIB = 1024 * 1024


@dataclass(frozen=True)
class ReadLimits:
    """Guards against inputs that would exhaust memory or never end."""

    #: Largest single file (catalog file, SKILL.md or resource).
    max_file_bytes: int = 16 * MIB
    #: Largest sum of file sizes read for one source path (a skills folder with resources).
    max_total_bytes: int = 256 * MIB
    #: Deepest folder nesting followed under a skills folder.
    max_depth: int = 24
    #: Most files read for one source path.
    max_files: int = 20_000


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
    """`16 MiB`, `16.5 MiB`, `2.1 KiB`, `12 bytes` (whole units without a decimal)."""
    for unit, size in (("MiB", MIB), ("KiB", 1024)):
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


def read_bytes_limited(
    path: Path,
    max_bytes: int,
    *,
    follow_symlinks: bool = True,
    expect: os.stat_result | None = None,
) -> bytes:
    """The bytes of a regular file, refusing before reading when it is larger than
    `max_bytes` (and again while reading, in case it grows).

    The file is opened without blocking (a FIFO or device never hangs the caller) and
    checked through the open descriptor, so what is read is what was checked. Without
    `follow_symlinks` a symlink is refused; with `expect` (an lstat result) the opened
    file must be that same file (no swap between the check and the read)."""
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
            raise ReadFailure(
                f"file is too large ({human_size(st.st_size)}; "
                f"the limit is {human_size(max_bytes)})"
            )
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise ReadFailure(describe_os_error(exc)) from None
    finally:
        close_unless_held(fd)  # never drops our SQLite locks on an open workspace
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise ReadFailure(f"file grew beyond the limit of {human_size(max_bytes)} while reading")
    return data


def decode_text(data: bytes) -> str:
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
) -> str:
    return decode_text(
        read_bytes_limited(path, max_bytes, follow_symlinks=follow_symlinks, expect=expect)
    )


def is_executable(st: os.stat_result) -> bool:
    return bool(st.st_mode & stat.S_IXUSR)
