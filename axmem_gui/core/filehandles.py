"""Raw file descriptors on workspace files, kept open while this process uses the file.
(Pure `os`: it lives in core so that every reader of user files can respect it.)

SQLite guards a workspace with POSIX (fcntl) record locks. On POSIX systems closing ANY
descriptor of a file drops ALL the locks this process holds on it, including those of
SQLite connections that are still open. Another process then believes nobody uses the
file, checkpoints and deletes the -wal/-shm under our feet, and our next read reports a
healthy file as damaged. SQLite's own unix VFS avoids this by sharing one record per
inode among its connections and deferring closes; our own reads of a workspace (the
header check, the byte backup before an upgrade) must do the same.

So: one registry entry per (st_dev, st_ino), holding the descriptors we opened and how
many opens use them. A header read reuses the entry's descriptor (positional reads, no
close); the descriptors close only when the last open that acquired them is released,
which happens after its SQLite connection has closed.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

_Key = tuple[int, int]


@dataclass
class _Entry:
    fds: list[int]
    users: int = 0


_LOCK = threading.Lock()
_ENTRIES: dict[_Key, _Entry] = {}


class NotRegularFile(OSError):
    """The path names a directory, FIFO, device...: not a file a workspace can be."""

    def __init__(self, is_dir: bool) -> None:
        super().__init__("not a regular file")
        self.is_dir = is_dir


@dataclass
class FileHandle:
    """One open's share of the descriptors of a workspace file. `release()` once its
    SQLite connection is closed (it is idempotent)."""

    key: _Key
    fd: int
    _released: bool = field(default=False, repr=False)

    def pread(self, size: int, offset: int) -> bytes:
        if sys.platform == "win32":  # no os.pread; Windows locks are not fcntl's anyway
            with _LOCK:
                os.lseek(self.fd, offset, os.SEEK_SET)
                return os.read(self.fd, size)
        return os.pread(self.fd, size, offset)

    def adopt(self, fd: int) -> None:
        """Keep another descriptor of the same file (one opened for writing) open until
        the entry's last user releases it, instead of closing it now."""
        with _LOCK:
            _ENTRIES[self.key].fds.append(fd)

    def release(self) -> None:
        with _LOCK:
            if self._released:
                return
            self._released = True
            entry = _ENTRIES[self.key]
            entry.users -= 1
            if entry.users > 0:
                return
            del _ENTRIES[self.key]
            fds = entry.fds
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def close_unless_held(fd: int) -> None:
    """Close a descriptor some reader opened, unless it is a file this process holds
    (an open workspace read as a plain file, say as an import): then keep it open with
    the others, closing it would drop this process's SQLite locks on that file."""
    try:
        key = _key(os.fstat(fd))
    except OSError:
        key = None
    if key is not None:
        with _LOCK:
            entry = _ENTRIES.get(key)
            if entry is not None:
                entry.fds.append(fd)
                return
    os.close(fd)


def _key(st: os.stat_result) -> _Key:
    return (st.st_dev, st.st_ino)


def acquire(path: Path) -> FileHandle:
    """A handle on the regular file at `path`: the descriptor this process already holds
    for that inode, or a new one kept until released. Raises NotRegularFile, or OSError
    (PermissionError, ...) from opening."""
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):  # a FIFO would block on open, a device never end
        raise NotRegularFile(stat.S_ISDIR(st.st_mode))
    with _LOCK:
        entry = _ENTRIES.get(_key(st))
        if entry is not None:
            entry.users += 1
            return FileHandle(_key(st), entry.fds[0])
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        fst = os.fstat(fd)
    except OSError:
        os.close(fd)  # cannot be a file we hold locks on: fstat of a fresh fd failed
        raise
    if not stat.S_ISREG(fst.st_mode):
        os.close(fd)  # not a regular file (swapped since the stat): no locks on it
        raise NotRegularFile(stat.S_ISDIR(fst.st_mode))
    key = _key(fst)
    with _LOCK:
        entry = _ENTRIES.get(key)
        if entry is None:
            entry = _ENTRIES[key] = _Entry([fd])
        else:
            # Another thread registered the same inode meanwhile (or the path now names
            # a file we already hold): closing this descriptor now could drop its locks.
            entry.fds.append(fd)
        entry.users += 1
        return FileHandle(key, entry.fds[0])


def users_of(key: _Key) -> int:
    """How many opens in this process use the file with this (st_dev, st_ino)."""
    with _LOCK:
        entry = _ENTRIES.get(key)
        return 0 if entry is None else entry.users


def held_descriptors(path: Path) -> int:
    """How many descriptors this process keeps on the file at `path` (for tests)."""
    try:
        key = _key(path.stat())
    except OSError:
        return 0
    with _LOCK:
        entry = _ENTRIES.get(key)
        return 0 if entry is None else len(entry.fds)
