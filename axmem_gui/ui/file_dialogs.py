"""File dialogs that never open the files they list.

Qt's file dialog guesses each listed file's type by reading it (QMimeDatabase content
sniffing, for the icon and the Type column): it opens `default.axmem`, its `-wal` and its
`-shm`, and closes them again. On POSIX that close drops every lock this process holds on
the workspace, SQLite's included (issue 25, /proc/locks before and after). The lock
holder makes that harmless for the open workspace (store/lockholder.py); these dialogs
make it not happen at all: an icon provider that decides by name alone, and on Linux
and the BSDs Qt's own dialog, because the native ones there (GTK, KDE) run in this
process and sniff files the same way. macOS and Windows keep their native panels
(Windows locks are not POSIX locks; a macOS panel that reads a file can only drop locks
the lock holder keeps anyway).

Each function has the signature and result of the QFileDialog static it replaces.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QFileInfo
from PySide6.QtGui import QAbstractFileIconProvider, QIcon
from PySide6.QtWidgets import QApplication, QFileDialog, QStyle, QWidget

#: Qt's own dialog where the native one is an in-process toolkit that sniffs files.
USE_QT_DIALOG = not sys.platform.startswith(("darwin", "win"))


class NameOnlyIconProvider(QAbstractFileIconProvider):
    """Icons and type names from the file's name and kind, never from its content."""

    def icon(self, what: QAbstractFileIconProvider.IconType | QFileInfo) -> QIcon:
        if isinstance(what, QFileInfo):
            folder, file = QStyle.StandardPixmap.SP_DirIcon, QStyle.StandardPixmap.SP_FileIcon
            return QApplication.style().standardIcon(folder if what.isDir() else file)
        return super().icon(what)

    def type(self, info: QFileInfo) -> str:
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} File" if suffix else "File"


def _dialog(
    parent: QWidget | None,
    caption: str,
    directory: str,
    filter: str,
    mode: QFileDialog.FileMode,
    *,
    save: bool = False,
) -> QFileDialog:
    dialog = QFileDialog(parent, caption, directory, filter)
    dialog.setFileMode(mode)
    if save:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    if mode == QFileDialog.FileMode.Directory:
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    if USE_QT_DIALOG:
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    return dialog


def _run(dialog: QFileDialog) -> list[str]:
    # Kept referenced while the dialog runs: the dialog does not own its provider.
    provider = NameOnlyIconProvider()
    dialog.setIconProvider(provider)
    try:
        return dialog.selectedFiles() if dialog.exec() == QFileDialog.DialogCode.Accepted else []
    finally:
        dialog.deleteLater()


def get_open_file_name(
    parent: QWidget | None, caption: str = "", directory: str = "", filter: str = ""
) -> tuple[str, str]:
    dialog = _dialog(parent, caption, directory, filter, QFileDialog.FileMode.ExistingFile)
    chosen = _run(dialog)
    return (chosen[0], dialog.selectedNameFilter()) if chosen else ("", "")


def get_open_file_names(
    parent: QWidget | None, caption: str = "", directory: str = "", filter: str = ""
) -> tuple[list[str], str]:
    dialog = _dialog(parent, caption, directory, filter, QFileDialog.FileMode.ExistingFiles)
    chosen = _run(dialog)
    return (chosen, dialog.selectedNameFilter()) if chosen else ([], "")


def get_save_file_name(
    parent: QWidget | None,
    caption: str = "",
    directory: str = "",
    filter: str = "",
    selected_filter: str = "",
) -> tuple[str, str]:
    dialog = _dialog(parent, caption, directory, filter, QFileDialog.FileMode.AnyFile, save=True)
    if selected_filter:
        dialog.selectNameFilter(selected_filter)
    chosen = _run(dialog)
    return (chosen[0], dialog.selectedNameFilter()) if chosen else ("", "")


def get_existing_directory(parent: QWidget | None, caption: str = "", directory: str = "") -> str:
    dialog = _dialog(parent, caption, directory, "", QFileDialog.FileMode.Directory)
    chosen = _run(dialog)
    return chosen[0] if chosen else ""
