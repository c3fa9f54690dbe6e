"""Issue #30: room to write on a 1366×768 laptop, and a window that never outgrows it.

On a real X server at 1366×768 (window 1350×693) the skill body editor was about 8 lines
(70 pixels with the welcome strip), and Ctrl+N on a skill with an empty description
showed a lint box that raised the window's minimum height to 710 pixels: the window went
past the bottom of the screen. Measured in a process of its own with a 1366×768 screen
(tests/helpers/laptop.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.services.workspace import init_workspace
from tests.helpers.laptop import TABLES, WANTED_LINES, laptop_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def laptop(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("laptop")
    workspace = tmp / "sample.axmem"
    init_workspace(workspace, sample=True).close()
    proc = subprocess.run(
        [sys.executable, "-m", "tests.helpers.laptop", str(tmp / "settings"), str(workspace)],
        cwd=ROOT,
        env=laptop_env(tmp),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_one_keystroke_gives_the_skill_body_twenty_lines(laptop: dict[str, Any]) -> None:
    assert laptop["lines_default"] < WANTED_LINES  # docks and the welcome share the height
    assert laptop["lines_focus"] >= WANTED_LINES, laptop
    assert laptop["docks_in_focus"] == []  # F11: every dock out of the way, the welcome too
    assert laptop["lines_focus_with_lint"] >= WANTED_LINES, laptop
    assert {"previewDock", "benchDock", "welcomeDock"} <= set(laptop["docks_after_focus"])


def test_the_suite_and_eval_tables_fit_without_scrolling_sideways(
    laptop: dict[str, Any],
) -> None:
    assert set(laptop["table_overflow"]) == set(TABLES)
    assert {k: v for k, v in laptop["table_overflow"].items() if v[0] > 0 or v[1]} == {}


def test_focus_mode_is_remembered_per_page(laptop: dict[str, Any]) -> None:
    assert laptop["focus_after_restart"] and laptop["lines_after_restart"] >= WANTED_LINES
    assert not laptop["focus_on_memories"]
    assert {"previewDock", "benchDock"} <= set(laptop["docks_on_memories"])


def test_the_window_never_grows_past_the_screen(laptop: dict[str, Any]) -> None:
    assert laptop["new_skill"] == "new-skill" and laptop["lint_box_docked"]
    assert laptop["fits_with_lint_box"], (laptop["frame_with_lint_box"], laptop["screen"])
    assert laptop["lint_box"] and laptop["fits_after_new"], laptop["frame_after_new"]
    assert {k: v for k, v in laptop["fits_pages"].items() if not v[0]} == {}, laptop["screen"]


def test_showing_a_dock_by_hand_ends_focus_mode(make_window: Any, qtbot: Any) -> None:
    window = make_window()
    window.show_section("skills")
    window.focus_action.trigger()
    assert all(dock.isHidden() for dock in window.docks.values())
    content = window.pages["skills"].form.content
    assert content.is_beside() and content.beside_toggle.isChecked()
    assert not window.settings.preview_beside("skills")  # not the user's choice
    window.dock_toggles["lintDock"].trigger()  # Ctrl+Shift+L
    assert not window.focus_action.isChecked()
    assert not window.docks["benchDock"].isHidden() and not window.docks["lintDock"].isHidden()
    assert not content.is_beside() and not content.beside_toggle.isChecked()  # as it was
    window.show_section("memories")
    window.show_section("skills")
    assert not window.focus_action.isChecked()
