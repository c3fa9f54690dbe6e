"""kill -9 during `axmem export --format skills-dir --force` (issue 25).

The old export moved skill folders into the target one by one: killed halfway it left
4,222 new and 45,778 old skills, plus its hidden `.axmem-export-*` staging folder inside
the export. Now the target is wholly the old export or wholly the new one at every
moment, nothing of ours is ever inside it, and the next export finishes or clears what a
killed one left beside it.

The export runs as the real CLI in a subprocess; the test watches the file system and
kills it when it sees the stage it wants (the new tree being written; with many skills,
also the new export in place while the old one is being deleted). The instants too short
to catch from outside (between the complete new tree and the swap, right after the swap,
between the two renames where no atomic exchange exists) are reached by a subprocess
that exits there (os._exit)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Skill
from axmem_gui.services.catalog import Write
from axmem_gui.services.workspace import init_workspace, open_workspace
from tests.helpers.shared_workspace import cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="kill -9")

#: Skills in the export (the slow tests use SLOW_SKILLS: the issue's case was 50,000).
SKILLS = 400
SLOW_SKILLS = 20_000


def _workspace(path: Path, version: str, skills: int) -> None:
    ws = init_workspace(path) if not path.exists() else open_workspace(path)
    with ws:
        ws.catalog.write(
            "skills",
            [
                Write(f"s{i:05d}", Skill(f"s{i:05d}", f"Skill {i}", "", f"content {version}"))
                for i in range(skills)
            ],
        )


def _versions(out: Path) -> dict[str, int]:
    """How many skill folders of the export hold each version (and anything else)."""
    seen: dict[str, int] = {}
    for entry in sorted(os.listdir(out)):
        skill_md = out / entry / "SKILL.md"
        if entry.startswith("."):
            seen[f"ours: {entry}"] = seen.get(f"ours: {entry}", 0) + 1
        elif skill_md.is_file():
            version = skill_md.read_text(encoding="utf-8").rsplit("content ", 1)[-1].strip()
            seen[version] = seen.get(version, 0) + 1
        else:
            seen[f"other: {entry}"] = seen.get(f"other: {entry}", 0) + 1
    return seen


def _ours_beside(out: Path) -> list[str]:
    return [p.name for p in out.parent.iterdir() if ".axmem-export" in p.name]


def _setup(tmp_path: Path, skills: int) -> tuple[Path, Path]:
    """A workspace whose first export (v1) is in place, now at v2."""
    ws, out = tmp_path / "w.axmem", tmp_path / "skills"
    _workspace(ws, "v1", skills)
    cli("export", "--workspace", str(ws), "--format", "skills-dir", str(out))
    (out / "README.md").write_text("the user's own file", encoding="utf-8")
    _workspace(ws, "v2", skills)
    return ws, out


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    return _setup(tmp_path, SKILLS)


def _kill_when(ws: Path, out: Path, seen: Callable[[], bool]) -> bool:
    """Run the export and kill -9 it the moment `seen()`; False if it finished first."""
    export = subprocess.Popen(
        [sys.executable, "-m", "axmem_gui.cli.main", "export", "--workspace", str(ws),
         "--format", "skills-dir", "--force", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while export.poll() is None:
        if seen():
            export.send_signal(signal.SIGKILL)
            export.wait()
            return True
    return False


def _new_tree_being_written(out: Path) -> Callable[[], bool]:
    def seen() -> bool:
        for place in (out.parent, out):  # beside the target (new), inside it (old code)
            for entry in os.scandir(place):
                if ".axmem-export" in entry.name and entry.is_dir():
                    for _root, _dirs, files in os.walk(entry.path):
                        if any(f == "SKILL.md" for f in files):
                            return True
        return False

    return seen


def _new_export_in_place(out: Path) -> Callable[[], bool]:
    first = out / "s00000" / "SKILL.md"

    def seen() -> bool:
        try:
            return first.read_text(encoding="utf-8").rstrip().endswith("content v2")
        except OSError:
            return False

    return seen


def _assert_whole(out: Path, version: str, skills: int = SKILLS) -> None:
    assert _versions(out) == {version: skills, "other: README.md": 1}
    assert (out / "README.md").read_text(encoding="utf-8") == "the user's own file"


def _then_the_next_export_finishes_cleanly(ws: Path, out: Path, skills: int = SKILLS) -> None:
    cli("export", "--workspace", str(ws), "--format", "skills-dir", "--force", str(out))
    _assert_whole(out, "v2", skills)
    assert _ours_beside(out) == []


def test_killed_while_writing_the_new_tree_the_old_export_is_whole(
    setup: tuple[Path, Path],
) -> None:
    ws, out = setup
    assert _kill_when(ws, out, _new_tree_being_written(out)), "the export finished first"
    _assert_whole(out, "v1")  # nothing of ours inside, nothing new yet
    _then_the_next_export_finishes_cleanly(ws, out)


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["writing", "in place"])
def test_killed_anywhere_in_a_big_export_the_folder_is_old_or_new(
    tmp_path: Path, stage: str
) -> None:
    ws, out = _setup(tmp_path, SLOW_SKILLS)
    if stage == "writing":
        assert _kill_when(ws, out, _new_tree_being_written(out)), "the export finished first"
        _assert_whole(out, "v1", SLOW_SKILLS)
    else:  # the old tree is still being deleted beside it
        assert _kill_when(ws, out, _new_export_in_place(out)), "the export finished first"
        _assert_whole(out, "v2", SLOW_SKILLS)
    _then_the_next_export_finishes_cleanly(ws, out, SLOW_SKILLS)


CRASH_AT = """
import os, sys
from axmem_gui.services import folder_swap
stage = sys.argv.pop(1)
if stage == "before-swap":
    folder_swap._exchange = lambda a, b: os._exit(9)
elif stage == "after-swap":  # before the old tree is deleted
    exchange = folder_swap._exchange
    folder_swap._exchange = lambda a, b: exchange(a, b) and os._exit(9)
else:  # no atomic exchange here; die between the two renames
    folder_swap._exchange = lambda a, b: False
    real_rename, calls = os.rename, []
    def rename(src, dst):
        calls.append(1)
        real_rename(src, dst)
        if len(calls) == 1:
            os._exit(9)
    folder_swap.os.rename = rename
from axmem_gui.cli.main import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("stage", ["before-swap", "after-swap", "between-renames"])
def test_a_crash_at_the_swap_leaves_old_or_new_and_is_recovered(
    setup: tuple[Path, Path], stage: str
) -> None:
    ws, out = setup
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_AT, stage, "export", "--workspace", str(ws),
         "--format", "skills-dir", "--force", str(out)],
        capture_output=True,
        text=True,
    )
    assert crashed.returncode == 9, crashed.stderr
    if stage == "before-swap":
        _assert_whole(out, "v1")
    elif stage == "after-swap":
        _assert_whole(out, "v2")
    else:
        assert not out.exists()  # the one moment with no target: recovery's case
    assert _ours_beside(out) != []
    _then_the_next_export_finishes_cleanly(ws, out)
