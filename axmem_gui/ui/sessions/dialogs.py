"""Small session dialogs, each with an `ask(...)` classmethod tests can replace."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.session.format import FILE_SUFFIX
from axmem_gui.services.sessions import SessionRow
from axmem_gui.ui import file_dialogs
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.sessions.list_model import SessionListModel, SessionRole

SESSION_FILTER = f"Ax sessions (*{FILE_SUFFIX});;JSON files (*.json);;All files (*)"


class ImportSessionDialog:
    @classmethod
    def ask(cls, parent: QWidget | None, start: str = "") -> list[Path]:
        names, _ = file_dialogs.get_open_file_names(
            parent, "Import sessions", start, SESSION_FILTER
        )
        return [Path(n) for n in names]


class ExportSessionDialog:
    @classmethod
    def ask(cls, parent: QWidget | None, suggested: Path) -> Path | None:
        name, _ = file_dialogs.get_save_file_name(
            parent, "Export session", str(suggested), SESSION_FILTER
        )
        if not name:
            return None
        path = Path(name)
        return path if path.name.endswith(FILE_SUFFIX) else path.with_name(path.stem + FILE_SUFFIX)


class ChooseSessionDialog(QDialog):
    """Pick the other session of a comparison."""

    def __init__(
        self, sessions: Sequence[SessionRow], prompt: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Choose a session")
        self.model = SessionListModel(self)
        self.model.set_sessions(sessions)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SessionRole.SortKey)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSortingEnabled(True)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(lambda *_: self.accept())
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label(prompt))
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(820, 420)
        if sessions:
            self.table.selectRow(0)

    def chosen(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        return str(rows[0].data(SessionRole.Id)) if rows else None

    @classmethod
    def ask(
        cls, parent: QWidget | None, sessions: Sequence[SessionRow], prompt: str
    ) -> str | None:
        dialog = cls(sessions, prompt, parent)
        dialog.table.sortByColumn(4, Qt.SortOrder.DescendingOrder)
        return dialog.chosen() if dialog.exec() == QDialog.DialogCode.Accepted else None
