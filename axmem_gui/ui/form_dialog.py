"""One shape for the dialogs that edit one form (agent configs, suites, suite cases): the
form's rows, one line saying what is wrong, and the buttons.

Accepting checks the form first (`check`, which raises the engine's own AxmemError naming
the field): the problem is shown and the dialog stays open, so nothing half-valid is kept.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
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
from axmem_gui.ui.screen_fit import CentralArea, screen_room

#: The least of a form a dialog shows before it scrolls (a short screen).
FORM_MIN_HEIGHT = 160


class FormArea(CentralArea):
    """A dialog's form at its natural size, scrolling only when the screen is too short
    for it (a case of an agent with seven inputs made the dialog taller than a 768-pixel
    screen, Save out of reach). Like the window's central area, but the dialog may be
    shorter than the form (down to `FORM_MIN_HEIGHT`), never narrower."""

    def __init__(self, form: QFormLayout) -> None:
        content = QWidget()
        content.setObjectName("formAreaContent")
        form.setContentsMargins(0, 0, 0, 0)
        content.setLayout(form)
        super().__init__(content)
        self.setObjectName("formArea")
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def minimumSizeHint(self) -> QSize:
        content = self.widget()
        if content is None:
            return super().minimumSizeHint()
        least = content.minimumSizeHint()
        bar = self.verticalScrollBar().sizeHint().width()
        return QSize(least.width() + bar, min(least.height(), FORM_MIN_HEIGHT))


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
        self.form_area = FormArea(self.form)
        layout.addWidget(self.form_area, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self._focused = False

    def showEvent(self, event: QShowEvent) -> None:
        # The subclass's rows came after the buttons: Qt would focus Save.
        if not self._focused:
            self._focused = True
            focus_first_input(self)
            # As tall as the whole form (a dialog sized `resize(w, 0)` asked for the least
            # height, which the scrolling form would have made a few rows), never taller
            # than the screen.
            room = screen_room(self)
            wanted = QSize(self.width(), max(self.height(), self.sizeHint().height()))
            if wanted.boundedTo(room) != self.size():
                self.resize(wanted.boundedTo(room))
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
