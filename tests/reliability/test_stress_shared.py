"""Stress: the app, the CLI and a reader on one workspace (issue 25).

The app (a real process, tests/reliability/app_driver.py) types into its form as fast as
it can save, with the Open Workspace dialog opening at random; the CLI imports (now and
then 2,000 skills in one transaction, which holds the write lock for a while) and tags;
a third program reads with Python's sqlite3. Afterwards: every write the app or the CLI
acknowledged is in the file, current and in the history; integrity_check is ok; and no
write failed that had waited less than the bound. The figures are printed (run with -s)
and appended to build/stress-figures.jsonl.

The short form runs in `make test`; the long one (60 s) is marked slow."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from axmem_gui.services.workspace import init_workspace
from tests.reliability.stress import Load, failed_after_the_bound, verify
from tests.reliability.test_app_beside_cli import REPO, AppProcess

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX record locks")

#: The bound a writer waits for another program (store/sharing.py's WRITE_WAIT_S).
WRITE_WAIT_S = 10.0


def _stress(tmp_path: Path, seconds: float, seed: int) -> dict[str, object]:
    workspace = tmp_path / "work" / "default.axmem"
    workspace.parent.mkdir()
    init_workspace(workspace, sample=True).close()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    app = AppProcess(workspace, tmp_path / "app.log")
    load = Load(workspace, scratch, seed)
    try:
        load.start()
        figures = app.ask(f"stress {seconds} {seed}")
    finally:
        load.stop()
        app.kill()  # a crash, after everything was acknowledged
    problems = verify(workspace, figures, load)
    app_failures = [e for e in figures["errors"] if not failed_after_the_bound(e, WRITE_WAIT_S)]
    cli_failures = [e for e in load.failures if not failed_after_the_bound(e, WRITE_WAIT_S)]
    acknowledged = sum(len(v) for v in figures["acknowledged"].values())
    summary = {
        "seconds": seconds,
        "app": {
            "edits typed": figures["typed"],
            "writes acknowledged": acknowledged,
            "failed": len(figures["errors"]),
            "failed before the bound": len(app_failures),
            "waited off the GUI thread": figures["waited"],
            "longest wait s": figures["longest_wait_s"],
            "longest GUI stall s": figures["longest_stall_s"],
            "file dialogs": figures["dialogs"],
            "conflicts": figures["conflicts"],
        },
        "cli": {
            "runs": load.cli_runs,
            "imports acknowledged": len(load.imports),
            "skills imported": sum(len(i) for i in load.imports),
            "tags acknowledged": len(load.tags),
            "failed": len(load.failures),
            "failed before the bound": len(cli_failures),
            "longest run s": round(load.longest_cli_s, 2),
        },
        "reader": {"reads": load.reads, "errors": len(load.read_errors)},
        "bound s": WRITE_WAIT_S,
        # The machine's load while it ran (2 CPUs shared with other work): a stall is
        # also the time nobody ran this process at all.
        "load average": [round(x, 1) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    print(json.dumps(summary, indent=1))
    out = REPO / "build" / "stress-figures.jsonl"
    out.parent.mkdir(exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        f.write(json.dumps(summary) + "\n")
    assert problems == []
    assert app_failures == [] and cli_failures == [], (app_failures, cli_failures)
    assert load.read_errors == []
    assert acknowledged > 0 and load.imports and load.tags and figures["dialogs"] > 0
    return summary


def test_the_app_the_cli_and_a_reader_share_a_workspace_briefly(tmp_path: Path) -> None:
    _stress(tmp_path, 8.0, seed=25)


@pytest.mark.slow
def test_the_app_the_cli_and_a_reader_share_a_workspace_for_a_minute(tmp_path: Path) -> None:
    _stress(tmp_path, 60.0, seed=2025)


def test_the_bound_is_the_stores() -> None:
    from axmem_gui.store.sharing import WRITE_WAIT_S as store_bound

    assert store_bound == WRITE_WAIT_S
