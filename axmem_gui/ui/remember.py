"""Splitters that keep the sizes (and orientation) the user gave them, across restarts."""

from __future__ import annotations

from PySide6.QtWidgets import QSplitter

from axmem_gui.ui.settings import AppSettings


def remember_splitter(splitter: QSplitter, settings: AppSettings, key: str) -> None:
    """Restore `splitter` from the settings under `key` and save it whenever the user
    drags it."""
    state = settings.splitter_state(key)
    if state is not None:
        splitter.restoreState(state)

    def save(*_: object) -> None:
        settings.set_splitter_state(key, splitter.saveState())

    splitter.splitterMoved.connect(save)
