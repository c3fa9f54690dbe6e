"""One shape for the dialogs that edit one form (agent configs, suites, suite cases): the
form's rows, one line saying what is wrong, and the buttons.

Accepting checks the form first (`check`, which raises the engine's own AxmemError naming
the field): the problem is shown and the dialog stays open, so nothing half-valid is kept.
"""

from __future__ import annotations

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.errors import AxmemError
from axmem_gui.ui.dialog_focus import focus_first_input
from axmem_gui.ui.inert_text import plain_label


def problem_label() -> QLabel:
    """The line under a form that says what is wrong (plain text, wrapped)."""
    label = plain_label()
    label.setObjectName("formError")
    label.setWordWrap(True)
    return label


def split_list(text: str, *, at_spaces: bool = False) -> list[str]:
    """Items typed into one line: separated by commas and line breaks (and spaces with
    `at_spaces`, for names that cannot hold one), blanks dropped."""
    separators = text.replace("\n", ",")
    if at_spaces:
        separators = ",".join(separators.split())
    return [part.strip() for part in separators.split(",") if part.strip()]


class FormDialog(QDialog):
    """A dialog of one form. Subclasses add rows to `self.form` and implement `check`."""

    def __init__(self, parent: QWidget | None, title: str, ok_text: str = "Save") -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.form = QFormLayout()
        self.problem = problem_label()
        self.problem.setVisible(False)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(ok_text)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self._focused = False

    def showEvent(self, event: QShowEvent) -> None:
        # The subclass's rows came after the buttons: Qt would focus Save.
        if not self._focused:
            self._focused = True
            focus_first_input(self)
        super().showEvent(event)

    def check(self) -> None:
        """Raise AxmemError (naming the field) when the form cannot be saved as it is."""

    def show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    def checked(self) -> bool:
        """Run `check`, showing its problem (or clearing the last one); True when fine."""
        try:
            self.check()
        except AxmemError as exc:
            self.show_problem(str(exc))
            return False
        self.show_problem("")
        return True

    def accept(self) -> None:
        if self.checked():
            super().accept()
