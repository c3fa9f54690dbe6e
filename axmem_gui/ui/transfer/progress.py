"""A small window-modal progress dialog for a task-runner job, with Cancel.

Window-modal so nobody edits the catalog while an import holds the write lock; shown
with `open()` so the event loop keeps running (the UI never freezes)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.resources import style_sheet


class TaskProgressDialog(QDialog):
    cancel_requested = Signal()

    def __init__(self, title: str, message: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taskProgress")
        self.setWindowTitle(title)
        self.setStyleSheet(style_sheet("transfer"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.message_label = plain_label(message)
        self.message_label.setObjectName("progressMessage")
        self.message_label.setMinimumWidth(420)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy until the first report
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.request_cancel)
        row = QHBoxLayout()
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message_label)
        layout.addLayout(row)
        self._finished = False

    def set_progress(self, fraction: float, message: str) -> None:
        if self.bar.maximum() == 0:
            self.bar.setRange(0, 1000)
        self.bar.setValue(round(fraction * 1000))
        if message and self.cancel_button.isEnabled():
            self.message_label.setText(message)

    def request_cancel(self) -> None:
        if not self.cancel_button.isEnabled():
            return
        self.cancel_button.setEnabled(False)
        self.message_label.setText("Cancelling… nothing will be changed")
        self.cancel_requested.emit()

    def finish(self) -> None:
        """Close for good (the job is over)."""
        self._finished = True
        self.done(QDialog.DialogCode.Accepted)
        self.deleteLater()

    # Escape or the close button mean Cancel; only `finish` closes the dialog.
    def reject(self) -> None:
        self.request_cancel()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.request_cancel()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._finished:
            super().closeEvent(event)
            return
        event.ignore()
        self.request_cancel()
