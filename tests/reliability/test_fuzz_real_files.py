"""Issue: fuzzing that can reach the hostile-file bugs. Real files (catalogs, sessions,
suites, scenarios, context-map states, SKILL.md folders, workspaces) are mutated by
structure (hostile values in real places, deep nesting, huge numbers, megabyte strings,
odd file types, odd names) and fed to every loader, to the CLI (in process) and to the
GUI's open paths (see tests/ui/test_fuzz_open_paths.py). No input may end in anything but
success or a clear AxmemError naming the file, take over 10 s, change a file it refused
or read a secret outside a skill folder.

`make test` runs over 10,000 inputs in total (see FUZZ_COUNTS in the output with -s);
`-m slow` (make test-long) runs ten times as many. The seed is fixed so that CI is
reproducible (a red run fails the same way anywhere); AXMEM_FUZZ_SEED=<n> runs another
seed and AXMEM_FUZZ_SEED=random a new one each run (the seed is in every failure)."""

from __future__ import annotations

import functools
import json
import os
import random
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import build_parser, run
from axmem_gui.core.errors import AxmemError
from axmem_gui.core.formats import read_source
from axmem_gui.services.catalogs import read_catalog_file
from axmem_gui.services.contextmaps import read_snapshot_file
from axmem_gui.services.sessions import read_session_file
from axmem_gui.services.suites import read_suite_file
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from tests.reliability import mutate

_SEED_SETTING = os.environ.get("AXMEM_FUZZ_SEED", "20261201")
SEED = random.randrange(2**32) if _SEED_SETTING == "random" else int(_SEED_SETTING)
SECRET = "AXMEM-FUZZ-SECRET-7f3a"
FIXTURE_SKILLS = Path(__file__).parent.parent / "fixtures" / "skills"


def _sample(name: str) -> Any:
    return json.loads((resources.files("axmem_gui") / "sample" / name).read_text("utf-8"))


def real_documents() -> dict[str, Any]:
    """One real document of each JSON kind the app reads."""
    folder = resources.files("axmem_gui") / "sample"
    session_name = next(p.name for p in folder.iterdir() if p.name.endswith(".axsession.json"))
    session = _sample(session_name)
    states = [s["state"] for s in session.get("contextMapSnapshots", []) if "state" in s]
    return {
        "catalog": _sample("catalog.json"),
        "session": session,
        # The real session is 350 KB; most inputs start from its first calls (faster).
        "session-head": dict(session, exchanges=session["exchanges"][:2]),
        "suites": _sample("suites.json"),
        "scenarios": _sample("scenarios.json"),
        "state": states[0] if states else {"text": "# Map\n"},
    }


def check_outcome(label: str, fn: Callable[[], Any], must_name: str = "") -> Any:
    """Run one input: success or an AxmemError with a message naming the file. (No wall-clock
    bound here: a reader that hangs is caught by the run; how fast readers are is measured in
    bench/, not asserted in a test.)"""
    try:
        result = fn()
    except AxmemError as exc:
        message = str(exc)
        assert message.strip() and "Traceback" not in message, (SEED, label, message)
        assert not must_name or must_name in message, (SEED, label, message)
        result = exc
    return result


READERS: dict[str, list[Callable[[Path], Any]]] = {
    "catalog": [read_catalog_file, lambda p: read_source(p, "ax-json")],
    "session": [read_session_file],
    "session-head": [read_session_file],
    "suites": [read_suite_file],
    "scenarios": [lambda p: read_source(p, "jsonl")],
    "state": [read_snapshot_file],
}


def _odd_file(r: random.Random, folder: Path) -> Path:
    path = folder / f"odd-{r.randrange(10**9)}.json"
    kind = r.randrange(4)
    if kind == 0:
        os.mkfifo(path)
    elif kind == 1:
        path.symlink_to("/dev/zero")
    elif kind == 2:
        path.mkdir()
    else:
        path.symlink_to(path)  # a loop
    return path


def test_loaders_take_mutated_real_files(
    tmp_path: Path, fuzz_counts: Counter[str], fuzz_scale: int
) -> None:
    docs = real_documents()
    kinds = [k for k in sorted(docs) if k != "session"]
    for i in range(4500 * fuzz_scale):
        r = random.Random(SEED * 1_000_003 + i)
        kind = "session" if i % 50 == 1 else kinds[i % len(kinds)]
        if i % 97 == 0:
            path = _odd_file(r, tmp_path)
        else:
            path = tmp_path / f"{kind}-{i % 7}.json"
            path.write_bytes(mutate.json_input(r, docs[kind]))
        for reader in READERS[kind]:
            result = check_outcome(f"{kind} #{i}", functools.partial(reader, path))
            problems = getattr(result, "problems", ())
            assert all(str(p).strip() for p in problems)
        fuzz_counts["loaders"] += 1


def test_skill_folders_never_leak_what_is_outside(
    tmp_path: Path, fuzz_counts: Counter[str], fuzz_scale: int
) -> None:
    outside = tmp_path / "outside-secret.txt"
    outside.write_text(SECRET, encoding="utf-8")
    seeds = [p.read_text("utf-8") for p in sorted(FIXTURE_SKILLS.glob("*/SKILL.md"))]
    for i in range(800 * fuzz_scale):
        r = random.Random(SEED * 7_000_003 + i)
        folder = mutate.skill_folder(r, tmp_path, r.choice(seeds), outside)
        src = check_outcome(f"skills #{i}", functools.partial(read_source, folder))
        assert not isinstance(src, AxmemError)  # read_source reports, never raises
        for imported in src.doc.skills:
            assert SECRET not in imported.skill.content, (SEED, i)
            assert all(SECRET.encode() not in res.data for res in imported.resources), (SEED, i)
        assert all(str(p).strip() for p in src.problems)
        fuzz_counts["skill folders"] += 1


def test_workspaces_refused_untouched_or_opened(
    tmp_path: Path, fuzz_counts: Counter[str], fuzz_scale: int
) -> None:
    real = tmp_path / "real.axmem"
    init_workspace(real, sample=True).close()
    seed = real.read_bytes()
    area = tmp_path / "area"
    area.mkdir()
    for i in range(400 * fuzz_scale):
        r = random.Random(SEED * 9_000_011 + i)
        for leftover in area.iterdir():
            leftover.unlink()
        target = area / "w.axmem"
        mutate.workspace_input(r, seed, target)
        before = target.read_bytes()

        read_only = r.random() < 0.5
        opened = check_outcome(
            f"workspace #{i}", functools.partial(Workspace.open, target, read_only=read_only)
        )
        if isinstance(opened, AxmemError):  # refused: untouched, nothing beside it
            assert target.read_bytes() == before, (SEED, i, "a refused file changed")
            assert [p.name for p in area.iterdir()] == ["w.axmem"], (SEED, i)
        else:  # taken: damage found later is a clear error too
            with opened:
                check_outcome(f"workspace read #{i}", opened.catalog)
        fuzz_counts["workspaces"] += 1


#: Commands over one file; those that also open the workspace are slower, so rarer.
CLI_TEMPLATES: list[tuple[str, list[str]]] = [
    ("catalog", ["render", "index", "--catalog", "{f}"]),
    ("catalog", ["render", "memories", "--catalog", "{f}"]),
    ("catalog", ["lint", "--catalog", "{f}"]),
    ("catalog", ["search", "skills", "--catalog", "{f}", "deploy rollback"]),
    ("session", ["replay", "{f}"]),
    ("session", ["diff", "{f}", "{f}"]),
    ("state", ["contextmap", "show", "{f}"]),
    ("catalog", ["render", "index", "--catalog", "{f}"]),
    ("session", ["replay", "--json", "{f}"]),
]
CLI_WORKSPACE_TEMPLATES: list[tuple[str, list[str]]] = [
    ("catalog", ["import", "-w", "{w}", "--dry-run", "{f}"]),
    ("session", ["sessions", "import", "-w", "{w}", "{f}"]),
    ("suites", ["suite", "run", "-w", "{w}", "--suite-file", "{f}", "--no-record"]),
]


def test_cli_takes_mutated_real_files(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fuzz_counts: Counter[str],
    fuzz_scale: int,
) -> None:
    docs = real_documents()
    parser = build_parser()
    workspace = tmp_path / "w.axmem"
    init_workspace(workspace, sample=True).close()
    for i in range(3000 * fuzz_scale):
        r = random.Random(SEED * 5_000_011 + i)
        if i % 12 == 0:
            kind, template = CLI_WORKSPACE_TEMPLATES[(i // 12) % len(CLI_WORKSPACE_TEMPLATES)]
        else:
            kind, template = CLI_TEMPLATES[i % len(CLI_TEMPLATES)]
        path = tmp_path / f"cli-{kind}.json"
        if path.is_dir() or path.is_symlink() or (path.exists() and not path.is_file()):
            path.unlink()
        path.write_bytes(mutate.json_input(r, docs[kind]))
        argv = [a.replace("{f}", str(path)).replace("{w}", str(workspace)) for a in template]

        def command(argv: list[str] = argv) -> int:
            try:
                return run(parser, argv)
            except SystemExit as exc:
                return exc.code if isinstance(exc.code, int) else 2

        code = check_outcome(" ".join(template[:2]) + f" #{i}", command)
        _, err = capsys.readouterr()
        assert code in (0, 1, 2), (SEED, i, argv[:3], err[-500:])
        assert "Traceback" not in err, (SEED, i, err[-2000:])
        assert "\x1b" not in err, (SEED, i)
        fuzz_counts["cli"] += 1
