"""Run > Agent Configs…: the workspace's agent configs, listed, with New, Edit and Delete,
reachable without starting a run (the Run dialog edits them the same way)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.errors import AxmemError
from axmem_gui.store import Workspace
from axmem_gui.ui.sessions.agent_editor import AgentConfigDialog


class AgentConfigsDialog(QDialog):
    """Every agent config of the workspace; changes are saved as they are made."""

    def __init__(self, ws: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Agent configs")
        self.ws = ws
        self.changed = False
        self.list = QListWidget()  # a handful of names: no second copy of real data
        self.list.setObjectName("agentList")
        self.list.itemDoubleClicked.connect(lambda _item: self.edit())
        intro = QLabel(
            "An agent config is what Run Agent… runs: signature, instruction, which skills "
            "and memories it may load, and its context map."
        )
        intro.setWordWrap(True)
        self.new_button = QPushButton("New…")
        self.edit_button = QPushButton("Edit…")
        self.delete_button = QPushButton("Delete")
        self.new_button.clicked.connect(lambda _c=False: self.new())
        self.edit_button.clicked.connect(lambda _c=False: self.edit())
        self.delete_button.clicked.connect(lambda _c=False: self.delete())
        self.error = QLabel()
        self.error.setObjectName("formError")
        self.error.setWordWrap(True)
        side = QVBoxLayout()
        for button in (self.new_button, self.edit_button, self.delete_button):
            side.addWidget(button)
        side.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.list, 1)
        row.addLayout(side)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(row, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        read_only = ws.read_only
        for button in (self.new_button, self.edit_button, self.delete_button):
            button.setEnabled(not read_only)
        self.resize(520, 360)
        self.reload()

    def reload(self, select: str | None = None) -> None:
        self.list.clear()
        self.list.addItems(self.ws.agents.list())
        if self.list.count():
            matches = self.list.findItems(select or "", Qt.MatchFlag.MatchExactly)
            self.list.setCurrentItem(matches[0] if matches and select else self.list.item(0))

    def current(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else item.text()

    def _save(self, old: str | None, value: dict[str, object] | None) -> None:
        if value is None:
            return
        name = str(value["name"])
        try:
            with self.ws.transaction():
                if old is not None and old != name:
                    self.ws.agents.delete(old)
                self.ws.agents.save(name, value)
        except AxmemError as exc:
            self.error.setText(f"Cannot save the agent config: {exc}")
            return
        self.error.clear()
        self.changed = True
        self.reload(select=name)

    def new(self) -> None:
        self._save(None, AgentConfigDialog.ask(self, None, self.ws.agents.list()))

    def edit(self) -> None:
        name = self.current()
        if name is None:
            return
        value = AgentConfigDialog.ask(self, self.ws.agents.get(name), self.ws.agents.list())
        self._save(name, value)

    def delete(self) -> None:
        name = self.current()
        if name is None:
            return
        try:
            self.ws.agents.delete(name)
        except AxmemError as exc:
            self.error.setText(f"Cannot delete the agent config: {exc}")
            return
        self.changed = True
        self.reload()

    @classmethod
    def show_for(cls, parent: QWidget | None, ws: Workspace) -> bool:
        """Show the list modally; True when an agent config was changed."""
        dialog = cls(ws, parent)
        try:
            dialog.exec()
            return dialog.changed
        finally:
            dialog.deleteLater()
