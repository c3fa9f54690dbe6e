"""Replacing a folder all at once: after any crash it is the old folder or the new one.

A skills-dir export with `--force` used to move skill folders into the target one by one
(kill -9 halfway left 4,222 new and 45,778 old skills, and its staging folder inside the
export). Now the new folder is built beside the target, in a work folder of ours
(`.<name>.axmem-export-XXXX/`, never inside the target), then the two are exchanged in one
step: `renameat2(RENAME_EXCHANGE)` on Linux; elsewhere (or where the file system cannot
exchange) two renames with a recovery, see below. The old tree is then deleted with the
work folder.

A crash leaves at most a work folder beside the target, whose state says what to do; the
next export into that target (`recover`) finishes the job: a target that went missing
between the two renames gets the complete new tree (or the old one back), then the work
folder goes. A work folder in use by a running export is locked (flock), so it is never
taken for a leftover. Entries of the target that the export does not replace (a README, a
`.git`) are carried into the new tree as hard links, so the swap replaces only what the
export writes, as the old `--force` did.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

if sys.platform != "win32":
    import fcntl

#: What marks a work folder as ours (and, locked, as in use).
MARKER = "axmem-export-work"
#: Present once the new tree is complete (then a missing target gets it).
COMPLETE = "complete"
NEW, OLD = "new", "old"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def work_prefix(target: Path) -> str:
    return f".{target.name}.axmem-export-"


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2); False where this is not possible
    (no such call, or a file system that cannot), OSError for other failures."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    renameat2.restype = ctypes.c_int
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextmanager
def _locked_marker(work: Path) -> Iterator[None]:
    """Hold the marker's lock while `work` is in use (flock belongs to the open file, so
    no close() elsewhere in the process drops it)."""
    fd = os.open(work / MARKER, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform != "win32":
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _in_use(work: Path) -> bool:
    if sys.platform == "win32":
        return False
    try:
        fd = os.open(work / MARKER, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def recover(target: Path) -> list[str]:
    """Finish what a killed replace of `target` left beside it; what was done, for logs."""
    done: list[str] = []
    try:
        candidates = sorted(target.parent.glob(work_prefix(target) + "*"))
    except OSError:
        return done
    for work in candidates:
        if not (work / MARKER).is_file() or _in_use(work):
            continue  # not ours, or an export running right now
        if not os.path.lexists(target):
            for name, what in ((NEW, "the new export"), (OLD, "the previous folder")):
                complete = name == OLD or (work / COMPLETE).exists()
                if complete and (work / name).is_dir():
                    os.rename(work / name, target)
                    done.append(f"{target}: put back {what} after an interrupted export")
                    break
        shutil.rmtree(work, ignore_errors=True)
        done.append(f"removed {work.name}")
    if done:
        _fsync_folder(target.parent)
    return done


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def _carry_over(target: Path, new: Path, replaced: Collection[str]) -> None:
    """Entries of `target` the export does not write, into the new tree (hard links)."""
    written = set(os.listdir(new)) | set(replaced)
    for entry in os.scandir(target):
        if entry.name in written:
            continue
        dst = new / entry.name
        if entry.is_dir(follow_symlinks=False):
            shutil.copytree(entry.path, dst, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(entry.path, str(dst))


def replace_folder(
    target: Path, build: Callable[[Path], None], replaced: Collection[str], mode: int
) -> None:
    """Make `target` the folder `build(new)` writes, plus the entries of the old target
    not named in `replaced`, in one step. Raises OSError; the target is then unchanged."""
    recover(target)
    work = Path(tempfile.mkdtemp(prefix=work_prefix(target), dir=target.parent))
    try:
        with _locked_marker(work):
            new = work / NEW
            new.mkdir()
            build(new)
            exists = os.path.lexists(target)
            if exists:
                _carry_over(target, new, replaced)
                shutil.copystat(target, new, follow_symlinks=False)
            else:
                os.chmod(new, mode)
            (work / COMPLETE).touch()
            _fsync_folder(work)
            if not exists:
                os.rename(new, target)
            elif not _exchange(new, target):
                # Two steps: a crash between them leaves no target, which `recover` fixes
                # with the complete new tree.
                os.rename(target, work / OLD)
                os.rename(new, target)
            _fsync_folder(target.parent)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except OSError:
        return False
