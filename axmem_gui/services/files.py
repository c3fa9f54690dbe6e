"""Reading and writing user-named files, with errors that say which file and what went
wrong; writes are atomic."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from axmem_gui.core.errors import InputError
from axmem_gui.core.jsout import encode_text


def read_utf8_file(path: Path, what: str) -> str:
    """The file's text; every failure is an InputError naming the file and `what` it should
    have been ("suite file", "session file", ...)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a {what}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read {what}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 (byte {exc.start})") from None


def write_file_atomic(path: Path, data: str | bytes, what: str) -> None:
    """Write `data` to a temporary file beside `path` and rename it over `path`, so a failed
    write never leaves a half-written file. Failures are InputErrors naming the file."""
    if path.is_dir():
        raise InputError(f"{path}: is a folder; give a file name for the {what}")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{folder}: folder not found")
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
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"{path}: cannot write {what}: {exc.strerror or exc}") from None
