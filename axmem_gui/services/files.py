"""Reading a user-named text file, with errors that say which file and what went wrong."""

from __future__ import annotations

from pathlib import Path

from axmem_gui.core.errors import InputError


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
