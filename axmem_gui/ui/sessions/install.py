"""Put the Sessions feature into the main window: the page replaces the placeholder list
and the Run menu gets the run/replay/rerun/compare/what-if/analytics actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from axmem_gui.ui.sessions.controller import SessionsFeature

if TYPE_CHECKING:
    from axmem_gui.ui.main_window import MainWindow


def install_sessions_view(window: MainWindow) -> SessionsFeature:
    feature = SessionsFeature(window, window.task_runner)
    old = window.pages["sessions"]
    position = window.stack.indexOf(old)
    showing = window.stack.currentWidget() is old
    window.stack.insertWidget(position, feature.page)
    window.stack.removeWidget(old)
    old.deleteLater()
    window.pages["sessions"] = feature.page
    # The window reloads `sessions_page` on every change of sessions.
    window.sessions_page = feature.page  # type: ignore[assignment]
    if showing:
        window.stack.setCurrentWidget(feature.page)
    window.sessions_feature = feature  # type: ignore[attr-defined]
    return feature
