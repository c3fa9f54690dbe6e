"""The house keeps modules under ~600 lines (issue 27: `ui/main_window.py`, `ui/lint/model.py`,
`ui/sessions/controller.py` and `ui/tasks.py` had grown past it, and `ui/preview/panel.py` did
while they were split). The UI layer is held to it here, so a module that grows past it is
split along a seam when it does, not found later in a review."""

from __future__ import annotations

from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "axmem_gui" / "ui"
#: The house limit (docs/design.md, rule 9: "a view file over ~600 lines is a smell").
MAX_LINES = 600


def test_every_ui_module_stays_under_the_house_limit() -> None:
    sizes = {
        str(path.relative_to(UI.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(UI.rglob("*.py"))
    }
    assert len(sizes) > 50  # (the UI layer was found)
    over = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert over == {}, f"over {MAX_LINES} lines, split along a seam: {over}"
