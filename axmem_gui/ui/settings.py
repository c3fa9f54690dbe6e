"""Typed application settings (QSettings INI at an injectable path).

Workspace-level settings live in the workspace file; these are per user and machine:
window layout, recent files, preferences."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from PySide6.QtCore import QByteArray, QSettings

SETTINGS_DIR_ENV = "AXMEM_SETTINGS_DIR"
MAX_RECENT = 10


def default_settings_path() -> Path:
    override = os.environ.get(SETTINGS_DIR_ENV)
    base = Path(override) if override else Path(platformdirs.user_config_dir("axmem", False))
    return base / "axmem-gui.ini"


class AppSettings:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_settings_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._s = QSettings(str(self.path), QSettings.Format.IniFormat)

    def sync(self) -> None:
        self._s.sync()

    # window layout ------------------------------------------------------------------
    def window_geometry(self) -> QByteArray | None:
        value = self._s.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    def set_window_geometry(self, value: QByteArray) -> None:
        self._s.setValue("window/geometry", value)

    def window_state(self) -> QByteArray | None:
        value = self._s.value("window/state")
        return value if isinstance(value, QByteArray) else None

    def set_window_state(self, value: QByteArray) -> None:
        self._s.setValue("window/state", value)

    # recent workspaces --------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self._s.value("files/recent", [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return []
        return [str(v) for v in value if isinstance(v, str) and v][:MAX_RECENT]

    def add_recent_file(self, path: str) -> None:
        items = [p for p in self.recent_files() if p != path]
        self._s.setValue("files/recent", [path, *items][:MAX_RECENT])

    def remove_recent_file(self, path: str) -> None:
        self._s.setValue("files/recent", [p for p in self.recent_files() if p != path])

    def last_workspace(self) -> str | None:
        value = self._s.value("files/last")
        return value if isinstance(value, str) and value else None

    def set_last_workspace(self, path: str) -> None:
        self._s.setValue("files/last", path)

    # preferences --------------------------------------------------------------------
    def theme(self) -> str:
        """'system', 'light' or 'dark'."""
        value = self._s.value("ui/theme", "system")
        return value if value in ("system", "light", "dark") else "system"

    def set_theme(self, value: str) -> None:
        if value not in ("system", "light", "dark"):
            raise ValueError(value)
        self._s.setValue("ui/theme", value)

    def show_whitespace(self) -> bool:
        return str(self._s.value("ui/showWhitespace", "false")).lower() == "true"

    def set_show_whitespace(self, value: bool) -> None:
        self._s.setValue("ui/showWhitespace", value)

    def welcome_dismissed(self) -> bool:
        return str(self._s.value("ui/welcomeDismissed", "false")).lower() == "true"

    def set_welcome_dismissed(self, value: bool) -> None:
        self._s.setValue("ui/welcomeDismissed", value)

    # docks per page ---------------------------------------------------------------------
    def page_dock_choice(self, page: str, dock: str) -> bool | None:
        """Whether the user showed (True) or hid (False) `dock` on `page`; None: no choice."""
        value = self._s.value(f"pageDocks/{page}/{dock}")
        if value is None:
            return None
        return str(value).lower() == "true"

    def set_page_dock_choice(self, page: str, dock: str, shown: bool) -> None:
        self._s.setValue(f"pageDocks/{page}/{dock}", shown)

    def page_focused(self, page: str) -> bool:
        """Focus mode on `page`: its docks hidden so the editor has the room."""
        return str(self._s.value(f"pageFocus/{page}", "false")).lower() == "true"

    def set_page_focused(self, page: str, focused: bool) -> None:
        self._s.setValue(f"pageFocus/{page}", focused)

    # splitters ----------------------------------------------------------------------------
    def splitter_state(self, key: str) -> QByteArray | None:
        value = self._s.value(f"splitters/{key}")
        return value if isinstance(value, QByteArray) else None

    def set_splitter_state(self, key: str, value: QByteArray) -> None:
        self._s.setValue(f"splitters/{key}", value)

    def preview_beside(self, kind: str) -> bool:
        """The editor's rendered preview beside the source (True) or below it."""
        return str(self._s.value(f"editor/{kind}/previewBeside", "false")).lower() == "true"

    def set_preview_beside(self, kind: str, beside: bool) -> None:
        self._s.setValue(f"editor/{kind}/previewBeside", beside)
