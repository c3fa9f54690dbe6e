"""The skill / memory form beside the table.

Typing is committed to the store after a short pause (or when the field loses focus) as an
`EditRequest`; whoever owns the undo stack turns it into a command. The form itself never
writes: it only knows the entry and the revision it shows.

Undo steps follow typing as in a text editor: a word boundary (a space or line break typed
after a word: it starts the next step) or a pause of `UNDO_PAUSE_S` starts a new step. A
request carries the values at the word boundaries typed since the last commit (`steps`)
and whether it may merge into the previous step (`joins`); the time comes from an
injectable clock."""

from __future__ import annotations

import time
from collections.abc import Callable
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
from axmem_gui.core.skill_names import agent_skill_name, agent_skill_name_problem
from axmem_gui.ui.editor.markdown_editor import MarkdownEditor
from axmem_gui.ui.elided import ElidedLabel
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.resources import style_leaves

#: Pause in typing after which an edit is committed (and so durable).
COMMIT_DELAY_MS = 400
#: A pause in typing at least this long starts a new undo step.
UNDO_PAUSE_S = 1.5

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
    #: The entry at each word boundary typed between `before` and `after` (undo steps).
    steps: tuple[Entry, ...] = ()
    #: The first step may merge into the previous edit of the field (no pause, no word
    #: boundary between them).
    joins: bool = True

    def values(self) -> list[Entry]:
        """before, each step, after; no value twice in a row."""
        out = [self.before]
        for value in (*self.steps, self.after):
            if value != out[-1]:
                out.append(value)
        return out

    def fields(self) -> list[str]:
        return self.field.split("+")

    def merged(self, later: EditRequest) -> EditRequest:
        """This edit and a later one of the same entry, typed while a write waited: one
        edit of both fields."""
        fields = list(dict.fromkeys([*self.fields(), *later.fields()]))
        after = replace(self.after, **{f: getattr(later.after, f) for f in later.fields()})
        return EditRequest(
            self.kind, self.before, after, self.revision, "+".join(fields), (), self.joins
        )

    def rebased(self, current: Entry, revision: int) -> EditRequest | None:
        """This edit applied to the entry as an earlier write left it (the form's revision
        predates that write); None when it changes nothing any more. (The word steps
        typed were steps from the older value: one step now.)"""
        after = replace(current, **{f: getattr(self.after, f) for f in self.fields()})
        if after == current:
            return None
        return EditRequest(self.kind, current, after, revision, self.field, (), self.joins)


def files_summary(skill: Skill) -> str:
    """One line for the form: the paths of the skill folder's other files. Read from the
    stored value as it is (the file dialog, with the format readers it needs, is loaded
    when it is first opened, not before the window's first paint)."""
    resources = skill.extra.get("resources") if skill.extra else None
    listed = resources if isinstance(resources, list) else []
    paths = [
        str(r["path"]) for r in listed if isinstance(r, dict) and isinstance(r.get("path"), str)
    ]
    return ", ".join(paths) if paths else "only SKILL.md"


def _is_space(char: str) -> bool:
    return char.isspace() or char == "\u2029"  # a paragraph break of QTextDocument


def _utf16_unit(text: str, index: int) -> str:
    """The UTF-16 unit at `index` of `text` (Qt's positions), "" outside it."""
    data = text.encode("utf-16-le", "surrogatepass")
    if not 0 <= index < len(data) // 2:
        return ""
    return data[2 * index : 2 * index + 2].decode("utf-16-le", "surrogatepass")


class EntryForm(QWidget):
    edit_committed = Signal(object)  # EditRequest
    rename_requested = Signal()
    history_requested = Signal()
    #: The id the Agent Skills naming rule's fix offers (the skill's folder name).
    rename_to_requested = Signal(str)
    #: The user is done with the name field (Enter or leaving it): a new skill's id
    #: may follow the name.
    name_finished = Signal()
    #: Files… (the skill folder's other files; see skill_files.py).
    files_requested = Signal()

    def __init__(
        self,
        kind: str,
        parent: QWidget | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setObjectName("entryForm")
        self.entry: Entry | None = None
        self.revision = 0
        self.read_only = False
        #: Seconds, for the pauses that start undo steps (tests inject their own).
        self.clock = clock
        self._loading = False
        #: A write waits for another program (ui/writes.py).
        self._waiting = False
        #: An edit was refused after that wait and is shown again, uncommitted.
        self._unsaved = False
        self._pending: list[str] = []
        self._deferred: list[EditRequest] = []
        #: Undo steps of the typing not committed yet (see the module).
        self._steps: list[Entry] = []
        self._joins = True
        self._last_key_at: float | None = None
        self._content_change = (0, 0, 0)
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
        # A skill id that breaks the Agent Skills naming rule, and the fix (skills only).
        self.id_problem = ElidedLabel()
        self.id_problem.setObjectName("idProblem")
        self.id_fix_button = QPushButton()
        self.id_fix_button.setObjectName("idFix")
        self._id_fix = ""
        self.id_fix_button.clicked.connect(self._on_id_fix)
        self.id_problem_row = QWidget()
        problem_row = QHBoxLayout(self.id_problem_row)
        problem_row.setContentsMargins(0, 0, 0, 0)
        problem_row.addWidget(self.id_problem, 1)
        problem_row.addWidget(self.id_fix_button)
        self.id_problem_row.hide()

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("Shown in the Available Skills list")
        self.description_edit = QLineEdit()
        self.description_edit.setPlaceholderText("One line: when to load this skill")
        # The skill folder's files besides SKILL.md (skills only): listed in the heading
        # (no height taken from the editor), managed in their dialog.
        self.files_label = ElidedLabel()
        self.files_label.setObjectName("skillFilesSummary")
        self.files_button = QPushButton("Files…")
        self.files_button.setObjectName("skillFilesButton")
        self.files_button.setToolTip(
            "The files of this skill's folder besides SKILL.md: view, add, replace, delete"
        )
        self.files_button.clicked.connect(self.files_requested)
        self.files_row = QWidget()
        files_layout = QHBoxLayout(self.files_row)
        files_layout.setContentsMargins(12, 0, 12, 0)
        files_caption = plain_label("Files:")
        files_caption.setObjectName("fieldCaption")
        files_layout.addWidget(files_caption)
        files_layout.addWidget(self.files_label, 1)
        files_layout.addWidget(self.files_button)
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
            form.addRow("", self.id_problem_row)
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
        if self.kind == "skills":
            heading.addWidget(self.files_row, 1)
        else:
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
        self.name_edit.editingFinished.connect(self.name_finished)
        self.content.edit.document().contentsChange.connect(self._on_content_change)
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
            self._show_id_problem(entry.id)
            if isinstance(entry, Skill):
                self.files_label.setText(files_summary(entry))
            for field in self.fields():
                if field not in self._pending:
                    self._show_field(field, entry)
        finally:
            self._loading = False
        self._update_state()

    def _on_id_fix(self) -> None:
        self.rename_to_requested.emit(self._id_fix)

    def _show_id_problem(self, entry_id: str) -> None:
        problem = agent_skill_name_problem(entry_id) if self.kind == "skills" else None
        if problem is None:
            self.id_problem_row.hide()
            return
        self._id_fix = agent_skill_name(entry_id)
        self.id_problem.setText(f"Not an Agent Skills name: {problem}")
        self.id_problem.setToolTip(
            "A skills-folder export puts this skill in a folder named "
            f"'{self._id_fix}' (the rule: lowercase letters, digits and single hyphens, "
            "at most 64 characters)."
        )
        self.id_fix_button.setText(f"Rename to '{self._id_fix}'")
        self.id_fix_button.setEnabled(not self.read_only)
        self.id_problem_row.show()

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
        self.id_fix_button.setEnabled(not read_only)
        self._update_state()

    # committing ---------------------------------------------------------------------
    def _on_content_change(self, position: int, removed: int, added: int) -> None:
        self._content_change = (position, removed, added)

    def _on_edited(self, field: str) -> None:
        if self._loading or self.read_only or self.entry is None:
            return
        if not self._pending and self._field_value(field) == getattr(self.entry, field):
            return  # the text was set again, not changed (a theme switch restyles it)
        now = self.clock()
        if not self._pending:
            # The first keystroke of a commit: after a pause, a new undo step.
            paused = self._last_key_at is not None and now - self._last_key_at >= UNDO_PAUSE_S
            self._joins = not paused
        self._last_key_at = now
        if field not in self._pending:
            self._pending.append(field)
        boundary = self._typed_word_boundary(field)
        if boundary is not None:
            # The word ends before the space: the value without it closes a step.
            assert self.entry is not None
            values = {f: self._field_value(f) for f in self._pending if f != field}
            values[field] = parse_tags(boundary) if field == "tags" else boundary
            self._steps.append(replace(self.entry, **values))  # type: ignore[arg-type]
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

    def _typed_word_boundary(self, field: str) -> str | None:
        """When the last keystroke typed one space or line break right after a word: the
        field's text without it (else None)."""
        if field == "content":
            position, removed, added = self._content_change
            if added != 1 or removed:
                return None
            document = self.content.edit.document()
            typed, before = document.characterAt(position), document.characterAt(position - 1)
            text, at = self.content.text(), position
        else:
            edit = self._line_edits[field]
            text, at = edit.text(), edit.cursorPosition() - 1
            typed, before = _utf16_unit(text, at), _utf16_unit(text, at - 1)
        if not (typed and _is_space(typed) and before and not _is_space(before)):
            return None
        units = text.encode("utf-16-le", "surrogatepass")
        return (units[: 2 * at] + units[2 * at + 2 :]).decode("utf-16-le", "surrogatepass")

    def discard_pending(self) -> None:
        self._timer.stop()
        self._pending = []
        self._deferred = []
        self._steps = []
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
        steps, self._steps = self._steps, []
        if not fields or self.entry is None:
            return None
        before = self.entry
        values = {field: self._field_value(field) for field in fields}
        after: Skill | Memory = replace(before, **values)  # type: ignore[arg-type]
        if after == before:
            return None
        # A word begun by the first key (a space after the last commit's word) is a new
        # step, as is anything typed after a pause.
        joins = self._joins and not (steps and steps[0] == before)
        return EditRequest(
            self.kind, before, after, self.revision, "+".join(fields), tuple(steps), joins
        )

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
