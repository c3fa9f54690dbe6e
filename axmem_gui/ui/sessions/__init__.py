"""Recorded agent sessions in the GUI: list, timeline viewer, runs, replay, rerun,
compare, what-if and usage analytics."""

from axmem_gui.ui.sessions.install import install_sessions_view

__all__ = ["install_sessions_view"]
