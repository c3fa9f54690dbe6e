"""The house keeps modules under ~600 lines (docs/design.md, rule 9; issue 27: the catalog's
repositories, the search index, the bench service and the agent runner had grown to 624-996
lines). Every layer below the UI (core, store, engine, services, cli, recorder, app.py) is
held to it here, so a module that grows past it is split along a seam when it does, not
found later in a review. (ui/ has its own check.)"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "axmem_gui"
#: The house limit.
MAX_LINES = 600


def _sizes() -> dict[str, int]:
    return {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "ui"
    }


def test_every_module_below_the_ui_stays_under_the_house_limit() -> None:
    sizes = _sizes()
    assert {"store", "core", "services", "engine", "cli"} <= {n.split("/")[0] for n in sizes}
    over = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert over == {}, f"over {MAX_LINES} lines, split along a seam: {over}"
