"""Usage analytics tab on the sample workspace: counts, filters, refresh after changes."""

from __future__ import annotations

import dataclasses
from typing import Any

from axmem_gui.core.session.analytics import LOADED_NEVER_USED, NEVER_LOADED, USED
from axmem_gui.core.session.model import Forward
from axmem_gui.services import analytics, sessions
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.analytics_view import LOADED, USED_COL
from axmem_gui.ui.sessions.controller import SessionsFeature
from tests.helpers.session_docs import stored_session
from tests.helpers.store import raw
from tests.ui.sessions.conftest import SAMPLE_ID, wait_idle


def callback_ids(fw: Forward, kind: str) -> list[str]:
    return fw.callback_ids(kind)


def _row(feature: SessionsFeature, entry_id: str) -> int:
    model = feature.page.usage.model
    return next(r for r in range(model.rowCount()) if model.entry(r).id == entry_id)


def test_usage_counts_on_the_sample(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    [usage_item] = [a for a in window.run_menu.actions() if a.text() == "Usage Analytics"]
    usage_item.trigger()
    wait_idle(qtbot, feature)
    view = feature.page.usage
    assert feature.page.tabs.currentWidget() is view
    ws = window.controller.workspace
    # Every shipped sample session (scripted models A and B), forward by forward.
    forwards = [fw for s in raw(ws).sessions.list() for fw in stored_session(ws, s.id).forwards]
    catalog = raw(ws).catalog()
    assert view.model.rowCount() == len(catalog.skills) + len(catalog.memories)
    loaded = {i for fw in forwards for k in ("loaded_skills", "loaded_memories")
              for i in callback_ids(fw, k)}  # fmt: skip
    used = {i for fw in forwards for k in ("used_skills", "used_memories")
            for i in callback_ids(fw, k)}  # fmt: skip
    for entry_id in loaded | used:
        row = _row(feature, entry_id)
        expected_loaded = sum(
            entry_id in callback_ids(fw, "loaded_skills") + callback_ids(fw, "loaded_memories")
            for fw in forwards
        )
        expected_used = sum(
            entry_id in callback_ids(fw, "used_skills") + callback_ids(fw, "used_memories")
            for fw in forwards
        )
        assert view.model.index(row, LOADED).data() == str(expected_loaded)
        assert view.model.index(row, USED_COL).data() == str(expected_used)
    view.set_status_filter(LOADED_NEVER_USED)
    assert sorted(view.visible_ids()) == sorted(loaded - used)
    view.set_status_filter(USED)
    assert sorted(view.visible_ids()) == sorted(used)
    view.set_status_filter(NEVER_LOADED)
    never = view.visible_ids()
    assert len(never) == len(catalog.skills) + len(catalog.memories) - len(loaded | used)
    assert f"{raw(ws).sessions.count()} session(s)" in view.summary.text()
    assert f"{len(loaded - used)} entries loaded but never used" in view.summary.text()
    report = analytics.usage_report(raw(ws))
    assert [e.id for e in report.never_loaded] == never


def test_usage_refreshes_after_a_new_session(
    window: MainWindow, feature: SessionsFeature, qtbot: Any
) -> None:
    feature.show_usage()
    wait_idle(qtbot, feature)
    view = feature.page.usage
    before = view.model.entry(_row(feature, "package-registries")).used
    ws = window.controller.workspace
    sessions.save_session(raw(ws), dataclasses.replace(stored_session(ws, SAMPLE_ID), id="again"))
    window.controller.notify_changed("sessions")  # the usage tab is showing: it recounts
    wait_idle(qtbot, feature)
    assert view.model.entry(_row(feature, "package-registries")).used == before + 1
    assert f"{raw(ws).sessions.count()} session(s)" in view.summary.text()
