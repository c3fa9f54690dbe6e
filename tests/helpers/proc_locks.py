"""What /proc/locks says about a workspace's files: which process holds which lock.

Linux only (the file exists nowhere else); tests that read it are skipped elsewhere by
`LINUX` (the mechanism they measure, POSIX record locks dropped by close(), is the same
on macOS, but nothing there lists the locks)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

LINUX = sys.platform.startswith("linux") and os.path.exists("/proc/locks")


@dataclass(frozen=True)
class HeldLock:
    pid: int
    file: str  # "default.axmem", "default.axmem-shm", ...
    mode: str  # READ | WRITE
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.file} {self.mode} {self.start}-{self.end} (pid {self.pid})"


def workspace_locks(path: Path) -> list[HeldLock]:
    """Every POSIX lock on the workspace file and its -wal/-shm, from /proc/locks."""
    inodes: dict[int, str] = {}
    for suffix in ("", "-wal", "-shm"):
        target = path.with_name(path.name + suffix)
        try:
            inodes[target.stat().st_ino] = target.name
        except OSError:
            continue
    dev = path.stat().st_dev
    wanted_dev = f"{os.major(dev):02x}:{os.minor(dev):02x}"
    out = []
    with open("/proc/locks", encoding="ascii") as f:
        for line in f:
            fields = line.split()
            if "->" in fields or len(fields) < 8 or fields[1] not in ("POSIX", "OFDLCK"):
                continue
            mode, pid, where, start, end = fields[3], fields[4], fields[5], fields[6], fields[7]
            major_minor, _, inode = where.rpartition(":")
            if major_minor != wanted_dev or int(inode) not in inodes:
                continue
            last = int(end) if end != "EOF" else -1
            out.append(HeldLock(int(pid), inodes[int(inode)], mode, int(start), last))
    return out


def locks_of(path: Path, pid: int) -> list[HeldLock]:
    return [lock for lock in workspace_locks(path) if lock.pid == pid]
