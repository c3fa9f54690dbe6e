"""Small dialogs with an `ask(...)` classmethod so tests can replace them."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from axmem_gui.core.workspace import WORKSPACE_SUFFIX
from axmem_gui.ui import file_dialogs
from axmem_gui.ui.inert_text import plain_message_box

WORKSPACE_FILTER = f"Ax workspaces (*{WORKSPACE_SUFFIX});;All files (*)"


class OpenWorkspaceDialog:
    @classmethod
    def ask(cls, parent: QWidget | None, start: str = "") -> Path | None:
        name, _ = file_dialogs.get_open_file_name(parent, "Open workspace", start, WORKSPACE_FILTER)
        return Path(name) if name else None


class NewWorkspaceDialog:
    @classmethod
    def ask(cls, parent: QWidget | None, start: str = "") -> Path | None:
        name, _ = file_dialogs.get_save_file_name(parent, "New workspace", start, WORKSPACE_FILTER)
        if not name:
            return None
        path = Path(name)
        return (
            path
            if path.suffix == WORKSPACE_SUFFIX
            else path.with_name(path.name + WORKSPACE_SUFFIX)
        )


class ErrorDialog:
    """Errors name the file, entry and field; never a traceback."""

    @classmethod
    def show(cls, parent: QWidget | None, title: str, message: str) -> None:
        plain_message_box(parent, QMessageBox.Icon.Warning, title, message).exec()
