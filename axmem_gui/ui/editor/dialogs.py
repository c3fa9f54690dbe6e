"""Small dialogs of the catalog editor, each behind an `ask(...)` classmethod so tests can
replace them."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.errors import ConflictError
from axmem_gui.core.skill_names import agent_skill_name, agent_skill_name_problem
from axmem_gui.ui.commands import Resolution
from axmem_gui.ui.inert_text import plain_label, plain_message_box


class ConflictDialog:
    """Another window or instance changed the entry since this one read it."""

    @classmethod
    def ask(cls, parent: QWidget | None, error: ConflictError) -> Resolution:
        box = plain_message_box(parent, QMessageBox.Icon.Warning, "", "")
        box.setWindowTitle("Changed elsewhere")
        box.setText(
            f"The {error.kind} '{error.entry_id}' was changed in another window or program."
        )
        gone = error.actual is None
        box.setInformativeText(
            ("It has been deleted there. " if gone else "")
            + "Reload theirs to drop your change and show the stored value, or overwrite "
            "with mine to keep your change (theirs stays in the entry's history)."
        )
        box.setDetailedText(str(error))
        theirs = box.addButton("Reload theirs", QMessageBox.ButtonRole.RejectRole)
        mine = box.addButton("Overwrite with mine", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(theirs)
        box.exec()
        return Resolution.MINE if box.clickedButton() is mine else Resolution.THEIRS


class RenameDialog(QDialog):
    """A new id. For a skill, an id that breaks the Agent Skills naming rule (its export
    folder's name) is pointed out as it is typed, with the name that follows it offered
    ("Use 'deploy-freeze'"); the id is the user's to choose, as Ax takes any."""

    def __init__(self, parent: QWidget | None, kind_label: str, old_id: str) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Rename {kind_label}")
        self.kind_label = kind_label
        prompt = plain_label(f"New id for '{old_id}' (the history stays with the entry):")
        prompt.setWordWrap(True)
        self.id_edit = QLineEdit(old_id)
        self.id_edit.setObjectName("renameId")
        self.id_edit.selectAll()
        self.problem = plain_label()
        self.problem.setObjectName("formError")
        self.problem.setWordWrap(True)
        self.fix_button = QPushButton()
        self.fix_button.setObjectName("renameFix")
        self.fix_button.clicked.connect(self._use_fix)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(prompt)
        layout.addWidget(self.id_edit)
        layout.addWidget(self.problem)
        layout.addWidget(self.fix_button)
        layout.addWidget(buttons)
        self.id_edit.textChanged.connect(self._check)
        self._check()
        self.resize(440, 0)

    def _check(self) -> None:
        problem = None
        if self.kind_label == "skill":
            problem = agent_skill_name_problem(self.id_edit.text())
        if problem is None or not self.id_edit.text().strip():
            self.problem.setVisible(False)
            self.fix_button.setVisible(False)
            return
        self.problem.setText(
            f"Not an Agent Skills name: {problem}. A skills-folder export would put it in "
            "a folder of another name (lowercase letters, digits and single hyphens, at "
            "most 64 characters)."
        )
        self.fix_button.setText(f"Use '{agent_skill_name(self.id_edit.text())}'")
        self.problem.setVisible(True)
        self.fix_button.setVisible(True)

    def _use_fix(self) -> None:
        self.id_edit.setText(agent_skill_name(self.id_edit.text()))
        self.id_edit.setFocus()

    def new_id(self) -> str:
        return self.id_edit.text()

    @classmethod
    def ask(cls, parent: QWidget | None, kind_label: str, old_id: str) -> str | None:
        dialog = cls(parent, kind_label, old_id)
        try:
            return dialog.new_id() if dialog.exec() == QDialog.DialogCode.Accepted else None
        finally:
            dialog.deleteLater()


class TagDialog(QDialog):
    """Asks for one tag. It starts empty: the known tags are offered in the drop-down and as
    completions, never preselected (Enter on a preselected unrelated tag added it)."""

    def __init__(
        self, parent: QWidget | None, adding: bool, count: int, known_tags: list[str]
    ) -> None:
        super().__init__(parent)
        noun = "entry" if count == 1 else "entries"
        self.setWindowTitle("Add tag" if adding else "Remove tag")
        label = plain_label(
            f"Tag to add to {count:,} selected {noun}:"
            if adding
            else f"Tag to remove from {count:,} selected {noun}:"
        )
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.combo.addItems(known_tags)
        self.combo.setCurrentIndex(-1)
        self.combo.clearEditText()
        line = self.combo.lineEdit()
        assert line is not None  # an editable combo box has its line edit
        line.setPlaceholderText("type a tag or pick one" if known_tags else "type a tag")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setDefault(True)
        self.combo.editTextChanged.connect(self._update_ok)
        self._update_ok()
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.combo)
        layout.addWidget(buttons)

    def _update_ok(self) -> None:
        self.ok_button.setEnabled(bool(self.tag().strip()))

    def tag(self) -> str:
        return self.combo.currentText()

    @classmethod
    def ask(
        cls, parent: QWidget | None, adding: bool, count: int, known_tags: list[str]
    ) -> str | None:
        dialog = cls(parent, adding, count, known_tags)
        return dialog.tag() if dialog.exec() == QDialog.DialogCode.Accepted else None


class OpenLinkDialog:
    @classmethod
    def ask(cls, parent: QWidget | None, target: str) -> bool:
        box = plain_message_box(
            parent,
            QMessageBox.Icon.Question,
            "Open link",
            f"Open this link in your browser?\n\n{target}",
        )
        box.setStandardButtons(QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Open

    @classmethod
    def refuse(cls, parent: QWidget | None, target: str) -> None:
        plain_message_box(
            parent,
            QMessageBox.Icon.Information,
            "Link not opened",
            f"Only web and mail links open from the preview. The target is:\n\n{target}",
        ).exec()
