"""The preview offers both runtimes' profiles, says which one the studio's runs send, and
names the entries the two show differently."""

from __future__ import annotations

import os

import pytest
from pytestqt.qtbot import QtBot

from axmem_gui.core.ax.profile import AXLLM_PROFILE, TS_PROFILE, load_profile
from axmem_gui.core.ax.render import user_turn_field
from axmem_gui.core.catalog import Skill
from axmem_gui.services.scenarios import runs_profile, simulate_scenario
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.commands import EditSession
from axmem_gui.ui.main_window import MainWindow
from tests.helpers.store import raw
from tests.ui.conftest import calls_on_gui_thread

from .conftest import views

ISSUE_IDS = ("Deploy-Freeze", "Zebra-runbook", "2fa-reset", "a-b", "aB", "a_b")


def test_the_picker_offers_both_and_names_the_studios_runs(rwindow: MainWindow) -> None:
    preview = views(rwindow).preview
    combo = preview.profile_combo
    items = {combo.itemData(i): combo.itemText(i) for i in range(combo.count())}
    assert set(items) == {TS_PROFILE, AXLLM_PROFILE}
    assert runs_profile() == AXLLM_PROFILE
    assert "the studio's runs" in items[AXLLM_PROFILE]
    assert "TypeScript" in items[TS_PROFILE]
    assert f"The studio's runs send {AXLLM_PROFILE}" in preview.runtimes_label.toolTip()


def test_every_section_follows_the_chosen_profile(rwindow: MainWindow) -> None:
    preview = views(rwindow).preview
    ws = rwindow.controller.workspace
    preview.set_profile(AXLLM_PROFILE)
    axllm = load_profile(AXLLM_PROFILE)
    for name in ("Ship 2.4.0", "SEV1 on checkout"):
        sim = simulate_scenario(ws.catalog.snapshot(), ws.scenarios.load(name), axllm)
        for turn, view in enumerate(sim.turns):
            preview.show_scenario(name, turn)
            preview.set_stage("distiller")
            preview.recompute_now()
            assert sim.distiller_section is not None
            assert preview.section_text("skills") == sim.distiller_section.text
            assert preview.section_text("loaded") == (
                user_turn_field("Loaded Skills", view.loaded_skills) or ""
            )
            assert preview.section_text("memories") == (
                user_turn_field("Memories", view.memories) or ""
            )
            assert preview.section_text("hints") == (
                user_turn_field("Relevance Hints", view.relevance_hints) or ""
            )


def _add_issue_skills(window: MainWindow, qtbot: QtBot) -> None:
    """The issue's mixed-case ids, added as an edit the preview follows."""
    ws = window.controller.workspace
    session: EditSession = window.feature(CATALOG).session
    with qtbot.waitSignal(views(window).preview.updated, timeout=5000):
        for skill_id in ISSUE_IDS:
            raw(ws).skills.upsert(Skill(skill_id, f"Skill {skill_id}", "", "freeze"))
        session.entries_changed("skills", list(ISSUE_IDS), True)


def test_mixed_case_ids_are_named_and_ordered_per_profile(
    rwindow: MainWindow, qtbot: QtBot
) -> None:
    v = views(rwindow)
    _add_issue_skills(rwindow, qtbot)
    v.preview.show_scenario(None)
    label = v.preview.runtimes_label.text()
    assert "Ax and axllm differ: order: " in label
    for skill_id in ("Deploy-Freeze", "Zebra-runbook"):
        assert skill_id in v.preview.runtimes_label.toolTip()

    def order() -> list[str]:
        text = v.preview.section_text("skills")
        ids = [line.split("`")[1] for line in text.splitlines() if line.startswith("- `")]
        return [i for i in ids if i in ISSUE_IDS]

    v.preview.set_profile(AXLLM_PROFILE)
    v.preview.recompute_now()
    assert order() == ["2fa-reset", "Deploy-Freeze", "Zebra-runbook", "a-b", "aB", "a_b"]
    if os.environ.get("AXMEM_SCREENSHOTS"):
        v.preview.grab().save(os.path.join(os.environ["AXMEM_SCREENSHOTS"], "preview-axllm.png"))
    assert v.preview.runtimes_label.text().startswith("Ax and axllm differ")
    v.preview.set_profile(TS_PROFILE)
    v.preview.recompute_now()
    assert order() == ["2fa-reset", "a_b", "a-b", "aB", "Deploy-Freeze", "Zebra-runbook"]
    # previewing a TypeScript app's prompts, the dock says they are not what runs here send
    assert v.preview.runtimes_label.text().startswith(
        f"The studio's runs send {AXLLM_PROFILE}, not this. Ax and axllm differ: order: "
    )
    if os.environ.get("AXMEM_SCREENSHOTS"):
        v.preview.grab().save(os.path.join(os.environ["AXMEM_SCREENSHOTS"], "preview-ts.png"))


def test_a_big_catalogs_orders_are_compared_off_the_gui_thread(
    rwindow: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Comparing Ax's and axllm's orders of 100,000 memories takes ~250 ms (collation
    keys): above `ORDER_HERE_MAX_ENTRIES` it runs on the preview's worker, and the line
    says so until it lands (it froze the GUI thread when the index landed at start-up)."""
    from axmem_gui.core.ax import runtime_diff
    from axmem_gui.ui.preview import rendering

    on_gui_thread = calls_on_gui_thread(monkeypatch, runtime_diff, "order_differences")
    monkeypatch.setattr(rendering, "ORDER_HERE_MAX_ENTRIES", 0)  # "big"
    v = views(rwindow)
    _add_issue_skills(rwindow, qtbot)
    qtbot.waitUntil(lambda: not v.preview.pending, timeout=10000)
    assert "Ax and axllm differ: order: " in v.preview.runtimes_label.text()
    assert "Deploy-Freeze" in v.preview.runtimes_label.toolTip()
    assert on_gui_thread and not any(on_gui_thread)
