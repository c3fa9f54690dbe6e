"""Issue #30: every dialog opens with the focus on its first input.

"New suite" and "Add as case…" created their buttons before their form rows, so the
focus started on Save: typed letters were lost and Space saved a suite named
"My checks 2". Every dialog class of the app is opened here (a new one must be added to
`DIALOGS`, the coverage check says so) and its focus checked; the two reported dialogs
are also driven through the window with real keystrokes."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QTextEdit,
    QWidget,
)

import axmem_gui.ui
from axmem_gui.core.suites import SuiteCase
from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.dialog_focus import first_input
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.sessions.controller import SESSIONS
from axmem_gui.ui.suites.feature import SUITES
from tests.helpers.hostile import hostile_workspace, live_html
from tests.helpers.store import raw
from tests.ui.conftest import WindowFactory

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")

INPUTS = (
    QLineEdit,
    QCheckBox,
    QRadioButton,
    QAbstractSpinBox,
    QComboBox,
    QPlainTextEdit,
    QTextEdit,
    QAbstractItemView,
)


def _all_dialog_classes() -> set[type[QDialog]]:
    for module in pkgutil.walk_packages(axmem_gui.ui.__path__, "axmem_gui.ui."):
        importlib.import_module(module.name)
    found: set[type[QDialog]] = set()
    todo: list[type[QDialog]] = [QDialog]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("axmem_gui."):
                found.add(sub)
    # a base of other dialogs (FormDialog) is opened through them
    return {c for c in found if not any(o is not c and issubclass(o, c) for o in found)}


def _visual_first_input(dialog: QDialog) -> QWidget | None:
    """What a user sees as the first field: the topmost, then leftmost, enabled input."""
    inputs = [
        w
        for w in dialog.findChildren(QWidget)
        if isinstance(w, INPUTS)
        and w.isVisible()
        and w.isEnabled()
        and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        and not isinstance(w.parentWidget(), (QComboBox, QAbstractSpinBox))
    ]
    if not inputs:
        return None

    def place(w: QWidget) -> tuple[int, int]:
        at = w.mapTo(dialog, w.rect().topLeft())
        return at.y(), at.x()

    return min(inputs, key=place)


def _focus_owner(widget: QWidget | None) -> QWidget | None:
    """The input a focused widget belongs to (an editable combo box's line edit, a spin
    box's line edit, an item view's viewport)."""
    while widget is not None and not isinstance(widget, (*INPUTS, QAbstractButton, QDialog)):
        widget = widget.parentWidget()
    if widget is not None and isinstance(widget.parentWidget(), (QComboBox, QAbstractSpinBox)):
        widget = widget.parentWidget()
    return widget


def _shown(qtbot: Any, dialog: QDialog) -> QDialog:
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.focusWidget() is not None)
    return dialog


#: How to make each dialog class of the app on the sample workspace's window.
def _dialogs(window: MainWindow, tmp_path: Path) -> dict[str, Callable[[], QDialog]]:
    from axmem_gui.core.contextmap.state import stored_map_from_json_value
    from axmem_gui.core.formats.model import SkillResource
    from axmem_gui.ui.about import AboutDialog
    from axmem_gui.ui.contextmap.dialogs import AddItemDialog, EvolutionDialog
    from axmem_gui.ui.editor.dialogs import RenameDialog, TagDialog
    from axmem_gui.ui.editor.skill_files import FileViewDialog, SkillFilesDialog
    from axmem_gui.ui.evals.dialogs import EvalCaseDialog, EvalSetDialog
    from axmem_gui.ui.help import DocumentationDialog, ShortcutsDialog
    from axmem_gui.ui.history import HistoryDialog
    from axmem_gui.ui.sessions.agent_editor import AgentConfigDialog
    from axmem_gui.ui.sessions.agents_dialog import AgentConfigsDialog
    from axmem_gui.ui.sessions.dialogs import ChooseSessionDialog
    from axmem_gui.ui.sessions.run_dialog import RerunDialog, RunAgentDialog
    from axmem_gui.ui.suites.dialogs import CaseDialog, SuiteDialog
    from axmem_gui.ui.tasks import JobContext
    from axmem_gui.ui.transfer.export_dialog import ExportDialog
    from axmem_gui.ui.transfer.jobs import ImportPreview, plan_job
    from axmem_gui.ui.transfer.preview_dialog import ImportPreviewDialog
    from axmem_gui.ui.transfer.progress import TaskProgressDialog

    ws = window.controller.workspace
    catalog = window.feature(CATALOG).catalog
    runner = window.task_runner
    sessions = window.feature(SESSIONS)
    rows = sessions.sessions().rows()
    session = sessions.sessions().get(rows[0].id)
    state = stored_map_from_json_value(raw(ws).contextmaps.list()[0].state, "map").state
    case = SuiteCase("c", "discover", ("q",), ("x",))
    source = tmp_path / "catalog.json"
    source.write_text('{"skills": [{"id": "a", "name": "A", "content": "c"}]}', "utf-8")

    def preview() -> QDialog:
        planned = plan_job(ws.catalog.reader(), [source])(JobContext(1))
        assert isinstance(planned, ImportPreview)
        return ImportPreviewDialog(planned, "skip", window)

    return {
        "TagDialog": lambda: TagDialog(window, True, 1, ["release"]),
        "RenameDialog": lambda: RenameDialog(window, "skill", "Deploy Freeze!"),
        "SkillFilesDialog": lambda: SkillFilesDialog(
            "release-checklist", lambda: raw(ws).skills.get("release-checklist"), lambda *_: True
        ),
        "FileViewDialog": lambda: FileViewDialog(SkillResource("reference.md", b"# Ref\n")),
        "SuiteDialog": lambda: SuiteDialog(window, "New suite", "My checks 2"),
        "CaseDialog": lambda: CaseDialog(window, "Add as case", case, ["ops-retrieval"], "x"),
        "EvalSetDialog": lambda: EvalSetDialog(window, "New eval set", ["ops-assistant"]),
        "EvalCaseDialog": lambda: EvalCaseDialog(window, "New case", ["request"], lambda _c: []),
        "HistoryDialog": lambda: HistoryDialog(
            window,
            "skill",
            "release-checklist",
            catalog.lineage("skills", "release-checklist"),
            catalog.entries("skills", ["release-checklist"])["release-checklist"],
        ),
        "RunAgentDialog": lambda: RunAgentDialog(
            sessions.agents(), sessions.sessions().jobs(), runner, sessions.save_agent, None, window
        ),
        "RerunDialog": lambda: RerunDialog(session, runner, sessions.sessions().jobs(), window),
        "AgentConfigsDialog": lambda: AgentConfigsDialog(sessions.agents(), _unused, window),
        "AgentConfigDialog": lambda: AgentConfigDialog(None, sessions.agents().names(), window),
        "ChooseSessionDialog": lambda: ChooseSessionDialog(rows, "Compare with:", window),
        "ShortcutsDialog": lambda: ShortcutsDialog([("Ctrl+N", "New", "Edit")], window),
        "DocumentationDialog": lambda: DocumentationDialog("# Read me", window),
        "AddItemDialog": lambda: AddItemDialog(window, None),
        "EvolutionDialog": lambda: EvolutionDialog(window, state),
        "AboutDialog": lambda: AboutDialog(window),
        "ExportDialog": lambda: ExportDialog(tmp_path, "ax-json", window, (3, 4)),
        "TaskProgressDialog": lambda: TaskProgressDialog("Importing", "reading…", window),
        "ImportPreviewDialog": preview,
    }


def _unused(*_args: object) -> None:
    """A callback the dialog is given but the test never triggers."""


def test_every_dialog_opens_with_the_focus_on_its_first_input(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    factories = _dialogs(window, tmp_path)
    assert {c.__name__ for c in _all_dialog_classes()} <= set(factories), (
        "a dialog class without a case here: add it to _dialogs"
    )
    wrong: list[str] = []
    for name, make in factories.items():
        dialog = _shown(qtbot, make())
        wanted = _visual_first_input(dialog)
        focused = _focus_owner(dialog.focusWidget())
        if wanted is not None and focused is not wanted:
            got = f"{type(focused).__name__} {focused.objectName() if focused else ''!r}"
            wrong.append(f"{name}: focus on {got}, first input {type(wanted).__name__}")
        if wanted is not None and first_input(dialog) is not wanted:
            wrong.append(f"{name}: first_input() disagrees with what is seen")
        dialog.close()
    assert wrong == []


def _on_modal(owner: QWidget, handle: Callable[[QDialog], None]) -> list[BaseException]:
    """Run `handle` on the next modal dialog once it shows with a focus (the dialog's
    `exec` is blocking the test meanwhile); errors come back in the list."""
    errors: list[BaseException] = []
    timer = QTimer(owner)
    timer.setInterval(5)

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QDialog) or not dialog.isVisible():
            return
        if dialog.focusWidget() is None:
            return
        timer.stop()
        try:
            handle(dialog)
        except BaseException as exc:  # reported by the test, after exec returns
            errors.append(exc)
            dialog.reject()

    timer.timeout.connect(poll)
    timer.start()
    return errors


def _type(qtbot: Any, dialog: QDialog, text: str) -> None:
    """Keys go to whatever has the focus, as they do from a keyboard."""
    for char in text:
        target = dialog.focusWidget() or dialog
        qtbot.keyClick(target, char)


def test_new_suite_takes_typed_letters_and_space_does_not_save(
    qtbot: Any, window: MainWindow
) -> None:
    page = window.feature(SUITES).page
    window.show_section("suites")
    before = {s.name for s in page.suites()}

    def handle(dialog: QDialog) -> None:
        _type(qtbot, dialog, "Release smoke")
        assert dialog.isVisible(), "a key pressed the Save button"
        name = dialog.findChild(QLineEdit, "suiteName")
        assert name is not None and name.text() == "Release smoke"
        qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Return)

    errors = _on_modal(window, handle)
    page.new_suite()
    assert errors == []
    assert {s.name for s in page.suites()} - before == {"Release smoke"}


def test_add_as_case_takes_typed_letters(qtbot: Any, window: MainWindow) -> None:
    window.show_section("skills")
    qtbot.waitUntil(lambda: window.feature(RETRIEVAL).state.ready, timeout=10_000)
    bench = window.feature(BENCH).panel
    bench.set_searches(["how do I ship a release"])
    bench.run()
    assert bench.add_case_button.isEnabled()
    page = window.feature(SUITES).page
    cases_before = sum(len(s.cases) for s in page.suites())

    def handle(dialog: QDialog) -> None:
        _type(qtbot, dialog, "ship it ")
        assert dialog.isVisible(), "a key pressed the Save button"
        combo = dialog.findChild(QComboBox, "caseSuite")
        assert combo is not None and combo.currentText().endswith("ship it ")
        dialog.reject()

    errors = _on_modal(window, handle)
    bench.add_case_button.click()
    assert errors == []
    assert sum(len(s.cases) for s in page.suites()) == cases_before


def test_dialogs_show_a_strangers_strings_as_text(
    qtbot: Any, make_window: WindowFactory, tmp_path: Path
) -> None:
    """The dialogs, on a workspace whose every user string is HTML (#26)."""
    window = make_window(hostile_workspace(tmp_path / "hostile.axmem"))
    for name, make in _dialogs(window, tmp_path).items():
        dialog = _shown(qtbot, make())
        dialog.grab()
        assert live_html([dialog, *dialog.findChildren(QWidget)]) == [], name
        dialog.close()
