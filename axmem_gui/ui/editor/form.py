"""The skill / memory form beside the table.

Typing is committed to the store after a short pause (or when the field loses focus) as an
`EditRequest`; whoever owns the undo stack turns it into a command. The form itself never
writes: it only knows the entry and the revision it shows."""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.catalog import Memory, Skill, singular
from axmem_gui.core.catalog_rows import Entry
from axmem_gui.ui.editor.markdown_editor import MarkdownEditor
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.resources import style_leaves

#: Pause in typing after which an edit is committed (and so durable).
COMMIT_DELAY_MS = 400

SKILL_FIELDS = ("name", "description", "tags", "content")
MEMORY_FIELDS = ("tags", "content")


def parse_tags(text: str) -> tuple[str, ...]:
    """Comma-separated tags, trimmed, empty ones dropped, first occurrence kept."""
    return tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))


def format_tags(tags: tuple[str, ...]) -> str:
    return ", ".join(tags)


@dataclass(frozen=True)
class EditRequest:
    kind: str
    before: Entry
    after: Entry
    revision: int
    field: str


class EntryForm(QWidget):
    edit_committed = Signal(object)  # EditRequest
    rename_requested = Signal()
    history_requested = Signal()

    def __init__(self, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setObjectName("entryForm")
        self.entry: Entry | None = None
        self.revision = 0
        self.read_only = False
        self._loading = False
        #: A write waits for another program (ui/writes.py).
        self._waiting = False
        #: An edit was refused after that wait and is shown again, uncommitted.
        self._unsaved = False
        self._pending: list[str] = []
        self._deferred: list[EditRequest] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COMMIT_DELAY_MS)
        self._timer.timeout.connect(self.commit_pending)
        self._build()
        # Styled per widget, not as a container (see `style_leaves`).
        style_leaves(self, "editor")

    # construction -------------------------------------------------------------------
    def _build(self) -> None:
        noun = singular(self.kind)
        self.id_edit = QLineEdit()
        self.id_edit.setReadOnly(True)
        self.id_edit.setObjectName("entryId")
        self.id_edit.setProperty("exactText", True)
        self.id_edit.setToolTip(f"The {noun}'s id, exactly as Ax sees it. F2 renames it.")
        self.rename_button = QPushButton("Rename…")
        self.rename_button.setToolTip("Change the id (F2); the history stays with the entry")
        self.rename_button.clicked.connect(self.rename_requested)
        self.history_button = QPushButton("History…")
        self.history_button.setToolTip("Every saved revision, with a diff and Restore")
        self.history_button.clicked.connect(self.history_requested)
        self.state_label = plain_label()
        self.state_label.setObjectName("entryState")
        id_row = QHBoxLayout()
        id_row.setContentsMargins(0, 0, 0, 0)
        id_row.addWidget(self.id_edit, 1)
        id_row.addWidget(self.rename_button)
        id_row.addWidget(self.history_button)

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("Shown in the Available Skills list")
        self.description_edit = QLineEdit()
        self.description_edit.setPlaceholderText("One line: when to load this skill")
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText("Comma-separated studio tags (not sent to Ax)")
        self.content = MarkdownEditor()
        self.content.edit.setPlaceholderText(
            "The guide the model reads when it loads this skill (markdown)"
            if self.kind == "skills"
            else "The fact, preference or prior context (markdown)"
        )

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        form.addRow("Id", id_row)
        if self.kind == "skills":
            form.addRow("Name", self.name_edit)
            form.addRow("Description", self.description_edit)
        form.addRow("Tags", self.tags_edit)

        # Reserved for the lint panel (another feature fills it with `set_lint_panel`).
        self.lint_area = QWidget()
        self.lint_area.setObjectName("lintArea")
        self.lint_layout = QVBoxLayout(self.lint_area)
        self.lint_layout.setContentsMargins(0, 0, 0, 0)
        self.lint_area.hide()

        editor = QWidget()
        layout = QVBoxLayout(editor)
        layout.setContentsMargins(6, 4, 4, 4)
        layout.setSpacing(4)
        heading = QHBoxLayout()
        title = plain_label(noun.capitalize())
        title.setObjectName("sectionTitle")
        heading.addWidget(title)
        heading.addStretch(1)
        heading.addWidget(self.state_label)
        layout.addLayout(heading)
        layout.addLayout(form)
        content_label = plain_label("Content (markdown)")
        content_label.setObjectName("fieldCaption")
        layout.addWidget(content_label)
        layout.addWidget(self.content, 1)
        layout.addWidget(self.lint_area)

        self.placeholder = plain_label(
            f"Select a {noun} to edit it, or press Ctrl+N to create one.\n"
            "Edits are saved as you type; Ctrl+Z undoes them."
        )
        self.placeholder.setObjectName("emptyState")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.placeholder)
        self.pages.addWidget(editor)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)

        self._line_edits = {
            "name": self.name_edit,
            "description": self.description_edit,
            "tags": self.tags_edit,
        }
        for field, edit in self._line_edits.items():
            edit.textEdited.connect(lambda _t, f=field: self._on_edited(f))
            edit.editingFinished.connect(self.commit_pending)
            edit.installEventFilter(self)
        self.content.edited.connect(lambda: self._on_edited("content"))
        self.content.focus_left.connect(self.commit_pending)
        self.content.edit.installEventFilter(self)
        self.id_edit.installEventFilter(self)

    def fields(self) -> tuple[str, ...]:
        return SKILL_FIELDS if self.kind == "skills" else MEMORY_FIELDS

    def set_lint_panel(self, panel: QWidget) -> None:
        self.lint_layout.addWidget(panel)
        self.lint_area.show()

    # showing an entry ---------------------------------------------------------------
    def load(self, entry: Entry | None, revision: int = 0) -> None:
        """Show `entry` at `revision`. Fields whose text already says the same keep their
        cursor and formatting; a field with uncommitted typing keeps it."""
        if self._pending and (entry is None or self.entry is None or entry.id != self.entry.id):
            # Switching away with typing not yet committed: commit it against the entry it
            # was typed into, once this load is done.
            request = self._take_request()
            if request is not None:
                self._deferred.append(request)
            QTimer.singleShot(0, self._flush_deferred)
        self.entry = entry
        self.revision = revision
        if entry is None:
            self.pages.setCurrentWidget(self.placeholder)
            return
        form_page = self.pages.widget(1)
        assert form_page is not None  # built in __init__: placeholder, then the form
        self.pages.setCurrentWidget(form_page)
        self._loading = True
        try:
            self.id_edit.setText(entry.id)
            self.id_edit.setCursorPosition(0)
            for field in self.fields():
                if field not in self._pending:
                    self._show_field(field, entry)
        finally:
            self._loading = False
        self._update_state()

    def _show_field(self, field: str, entry: Entry) -> None:
        value = getattr(entry, field)
        if field == "content":
            self.content.set_text(value)
            return
        edit = self._line_edits[field]
        if self._field_value(field) == value:
            return
        text = format_tags(value) if field == "tags" else value
        cursor = edit.cursorPosition()
        edit.setText(text)
        edit.setCursorPosition(min(cursor, len(text)) if edit.hasFocus() else 0)

    def _field_value(self, field: str) -> object:
        if field == "content":
            return self.content.text()
        text = self._line_edits[field].text()
        return parse_tags(text) if field == "tags" else text

    def set_read_only(self, read_only: bool) -> None:
        self.read_only = read_only
        for edit in self._line_edits.values():
            edit.setReadOnly(read_only)
        self.content.set_read_only(read_only)
        self.rename_button.setEnabled(not read_only)
        self._update_state()

    # committing ---------------------------------------------------------------------
    def _on_edited(self, field: str) -> None:
        if self._loading or self.read_only or self.entry is None:
            return
        if field not in self._pending:
            self._pending.append(field)
        self._timer.start()
        self._update_state()

    def set_waiting(self, waiting: bool) -> None:
        self._waiting = waiting
        self._update_state()

    def keep_unsaved(self, value: Entry) -> None:
        """Show the fields of `value` that differ from the entry shown, as typing not yet
        committed: an edit the workspace refused is kept here, and saved with the next
        one (or when the field loses focus)."""
        if self.entry is None or self.entry.id != value.id or self.read_only:
            return
        self._loading = True
        try:
            for field in self.fields():
                if field in self._pending or getattr(value, field) == getattr(self.entry, field):
                    continue
                self._show_field(field, value)
                self._pending.append(field)
        finally:
            self._loading = False
        self._unsaved = bool(self._pending)
        self._update_state()

    def discard_pending(self) -> None:
        self._timer.stop()
        self._pending = []
        self._deferred = []
        self._update_state()

    def has_pending(self) -> bool:
        return bool(self._pending)

    def commit_pending(self) -> None:
        """Turn uncommitted typing into an edit request now."""
        self._timer.stop()
        request = self._take_request()
        if request is not None:
            self.edit_committed.emit(request)
        self._update_state()

    def _take_request(self) -> EditRequest | None:
        """One request for every field typed into (normally just the focused one)."""
        fields, self._pending = self._pending, []
        self._unsaved = False
        if not fields or self.entry is None:
            return None
        before = self.entry
        values = {field: self._field_value(field) for field in fields}
        after: Skill | Memory = replace(before, **values)  # type: ignore[arg-type]
        if after == before:
            return None
        return EditRequest(self.kind, before, after, self.revision, "+".join(fields))

    def _flush_deferred(self) -> None:
        requests, self._deferred = self._deferred, []
        for request in requests:
            self.edit_committed.emit(request)

    def _update_state(self) -> None:
        if self.entry is None:
            self.state_label.setText("")
        elif self.read_only:
            self.state_label.setText(f"revision {self.revision} · read-only")
        elif self._unsaved and self._pending:
            self.state_label.setText("not saved: another program was writing · kept here")
        elif self._waiting:
            self.state_label.setText("waiting for another program…")
        elif self._pending:
            self.state_label.setText("editing…")
        else:
            self.state_label.setText(f"revision {self.revision} · saved")

    # keys ---------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Text widgets claim Ctrl+Z for their own history. Let it reach the window's one
        # undo stack instead, after committing what was typed so it can be undone.
        is_key = event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent)
        if is_key and _is_undo_or_redo(event):  # type: ignore[arg-type]
            self.commit_pending()
            event.ignore()
            return True
        return super().eventFilter(watched, event)


def _is_undo_or_redo(event: QKeyEvent) -> bool:
    if event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo):
        return True
    combo = event.keyCombination()
    return combo.key() == Qt.Key.Key_Z and combo.keyboardModifiers() == (
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
