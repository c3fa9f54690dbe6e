"""Reading and writing user-named files, with errors that say which file and what went
wrong. Reads take regular files only, within a size limit (see `core.formats.fileio`);
writes are atomic, durable and get the mode a new file would get."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from axmem_gui.core.errors import InputError
from axmem_gui.core.formats.fileio import MIB, ReadFailure, read_text_limited
from axmem_gui.core.jsout import encode_text

#: Largest file read whole (sessions with long transcripts are the largest we take).
MAX_USER_FILE_BYTES = 64 * MIB


def read_utf8_file(path: Path, what: str, *, max_bytes: int = MAX_USER_FILE_BYTES) -> str:
    """The file's text; every failure is an InputError naming the file and `what` it should
    have been ("suite file", "session file", ...). FIFOs, devices and folders are refused
    without blocking; so are files over `max_bytes`, binary files and invalid UTF-8."""
    try:
        return read_text_limited(path, max_bytes)
    except ReadFailure as exc:
        message = str(exc)
        if message.startswith("not found"):
            raise InputError(f"{path}: {what} not found") from None
        if message.startswith("is a folder"):
            raise InputError(f"{path}: is a directory, expected a {what}") from None
        raise InputError(f"{path}: cannot read {what}: {message}") from None


def current_umask() -> int:
    """The process umask, read without changing it where the system allows."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # no other way to read it; set it straight back
    os.umask(mask)
    return mask


def new_file_mode(*, executable: bool = False) -> int:
    """The mode `open(..., "w")` would give a new file (0644 under the usual umask)."""
    return (0o777 if executable else 0o666) & ~current_umask()


def _fsync_folder(folder: Path) -> None:
    # Makes the rename itself durable; not every system can open a folder.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_file_atomic(path: Path, data: str | bytes, what: str) -> None:
    """Write `data` to a temporary file beside `path`, fsync it and rename it over `path`,
    so a failed or interrupted write never leaves a half-written file nor a temporary one.
    A new file gets the umask's mode; a replaced file keeps its mode. Failures are
    InputErrors naming the file."""
    if path.is_dir():
        raise InputError(f"{path}: is a folder; give a file name for the {what}")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{folder}: folder not found")
    try:
        st = path.stat()
        mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else new_file_mode()
    except OSError:
        mode = new_file_mode()
    # text rule of core.jsout: a lone surrogate is written as U+FFFD (JSON callers have
    # escaped theirs already), never a UnicodeEncodeError and an empty file
    payload = encode_text(data) if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"{path}: cannot write {what}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
            out.flush()
            os.fchmod(out.fileno(), mode)
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"{path}: cannot write {what}: {exc.strerror or exc}") from None
        raise
    _fsync_folder(folder)
