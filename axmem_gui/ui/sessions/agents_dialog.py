"""Run > Agent Configs…: the workspace's agent configs, listed, with New, Edit and Delete,
reachable without starting a run. New, Edit and Delete are undoable commands on the main
undo stack, as in the Run dialog."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.session.agent_config import AgentConfig
from axmem_gui.services.agents import AgentService
from axmem_gui.ui.form_dialog import problem_label
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.sessions.agent_editor import AgentConfigDialog
from axmem_gui.ui.sessions.run_dialog import SaveAgent


class AgentConfigsDialog(QDialog):
    """Every agent config of the workspace; changes are saved as they are made."""

    def __init__(
        self, agents: AgentService, save: SaveAgent, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Agent configs")
        self.agents = agents
        self._save_agent = save
        self.changed = False
        self.list = QListWidget()  # a handful of names: no second copy of real data
        self.list.setObjectName("agentList")
        self.list.itemDoubleClicked.connect(lambda _item: self.edit())
        intro = plain_label(
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
        self.error = problem_label()
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
        read_only = agents.read_only
        for button in (self.new_button, self.edit_button, self.delete_button):
            button.setEnabled(not read_only)
        self.resize(520, 360)
        self.reload()

    def reload(self, select: str | None = None) -> None:
        self.list.clear()
        self.list.addItems(self.agents.names())
        if self.list.count():
            matches = self.list.findItems(select or "", Qt.MatchFlag.MatchExactly)
            self.list.setCurrentItem(matches[0] if matches and select else self.list.item(0))

    def current(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else item.text()

    def _save(self, old: str | None, value: AgentConfig | None) -> None:
        if value is None:
            return
        name = value.name
        before = self.agents.find(old) if old is not None else None
        try:
            self._save_agent(before, value)  # undoable, like the Run dialog's edits
        except AxmemError as exc:
            self.error.setText(f"Cannot save the agent config: {exc}")
            return
        self.error.clear()
        self.changed = True
        self.reload(select=name)

    def new(self) -> None:
        self._save(None, AgentConfigDialog.ask(self, None, self.agents.names()))

    def edit(self) -> None:
        name = self.current()
        if name is None:
            return
        found = self.agents.find(name)
        value = AgentConfigDialog.ask(
            self,
            found.config if found is not None else None,
            self.agents.names(),
            name=name,
            problem=found.problem if found is not None else "",
        )
        self._save(name, value)

    def delete(self) -> None:
        name = self.current()
        if name is None:
            return
        found = self.agents.find(name)
        if found is None:
            self.reload()
            return
        try:
            self._save_agent(found, None)  # undoable
        except AxmemError as exc:
            self.error.setText(f"Cannot delete the agent config: {exc}")
            return
        self.changed = True
        self.reload()

    @classmethod
    def show_for(cls, parent: QWidget | None, agents: AgentService, save: SaveAgent) -> bool:
        """Show the list modally; True when an agent config was changed."""
        dialog = cls(agents, save, parent)
        try:
            dialog.exec()
            return dialog.changed
        finally:
            dialog.deleteLater()
