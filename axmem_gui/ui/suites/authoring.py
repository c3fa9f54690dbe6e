"""Authoring on the suites page: the actions (new, edit, duplicate, delete a suite; new,
edit, duplicate, delete a case; import, export; "Add as case…" from the bench), each an
undoable command through the suites service."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt, SignalInstance
from PySide6.QtGui import QAction, QKeySequence, QShortcut, QUndoStack
from PySide6.QtWidgets import (
    QListView,
    QMenu,
    QPushButton,
    QTableView,
    QToolBar,
    QToolButton,
    QWidget,
)

from axmem_gui.core.errors import AxmemError
from axmem_gui.core.suites import Suite, SuiteCase
from axmem_gui.services.suites import (
    SuiteChange,
    SuiteService,
    read_suite_file,
    unique_case_name,
    write_suite_file,
)
from axmem_gui.ui.actions import make_action
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.suites.commands import SuiteChangesCommand
from axmem_gui.ui.suites.dialogs import CaseDialog, SuiteDialog, SuiteFileDialog
from axmem_gui.ui.suites.models import CaseTableModel, SuiteListModel


class SuiteAuthoring:
    """Mixed into SuitesPage (a QWidget): what it needs from the page is declared here."""

    message: SignalInstance
    controller: WorkspaceController
    undo_stack: QUndoStack
    list_model: SuiteListModel
    list_view: QListView
    cases_model: CaseTableModel
    cases_view: QTableView
    suite_bar: QToolBar
    case_bar: QToolBar
    empty_new_button: QPushButton
    empty_import_button: QPushButton

    def current_name(self) -> str | None:
        raise NotImplementedError

    def select(self, name: str) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def suites(self) -> list[Suite]:
        raise NotImplementedError

    def _open_in_bench(self, index: QModelIndex) -> None:
        raise NotImplementedError

    def _add(self, bar: QToolBar, text: str, slot: Callable[[], object], tip: str) -> QAction:
        raise NotImplementedError

    @property
    def _widget(self) -> QWidget:
        assert isinstance(self, QWidget)
        return self

    def _build_actions(self) -> None:
        sb, cb = self.suite_bar, self.case_bar
        self.new_suite_action = self._add(sb, "New…", self.new_suite, "Create an empty suite")
        self.edit_suite_action = self._add(
            sb, "Edit…", self.edit_suite, "Rename the suite or change its description"
        )
        self.duplicate_suite_action = self._add(
            sb, "Duplicate", self.duplicate_suite, "A copy of the suite with all its cases"
        )
        self.delete_suite_action = self._add(
            sb, "Delete", self.delete_suite, "Delete the suite (Ctrl+Z brings it back)"
        )
        more = QToolButton()
        more.setText("More ▾")
        more.setToolTip("Import or export suites as JSON")
        more.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(more)
        self.import_action = make_action(
            self._widget,
            "Import suites…",
            self.import_suites,
            tip="Add the suites of a suite JSON file",
        )
        self.export_action = make_action(
            self._widget,
            "Export suites…",
            self.export_suites,
            tip="Write every suite to a JSON file",
        )
        menu.addAction(self.import_action)
        menu.addAction(self.export_action)
        more.setMenu(menu)
        sb.addWidget(more)
        self.new_case_action = self._add(cb, "New case…", self.new_case, "Add a case to the suite")
        self.edit_case_action = self._add(
            cb, "Edit case…", self.edit_case, "Change the selected case (F2)"
        )
        self.duplicate_case_action = self._add(
            cb, "Duplicate case", self.duplicate_case, "A copy of the selected case"
        )
        self.delete_case_action = self._add(
            cb, "Delete case", self.delete_case, "Delete the selected case (Ctrl+Z brings it back)"
        )
        self.open_case_action = self._add(
            cb,
            "Open in bench",
            self.open_case_in_bench,
            "Run the selected case's call in the bench",
        )
        delete_case = QShortcut(QKeySequence.StandardKey.Delete, self.cases_view)
        delete_case.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete_case.activated.connect(self.delete_case)
        edit_case = QShortcut(QKeySequence("F2"), self.cases_view)
        edit_case.setContext(Qt.ShortcutContext.WidgetShortcut)
        edit_case.activated.connect(self.edit_case)
        delete_suite = QShortcut(QKeySequence.StandardKey.Delete, self.list_view)
        delete_suite.setContext(Qt.ShortcutContext.WidgetShortcut)
        delete_suite.activated.connect(self.delete_suite)
        edit_suite = QShortcut(QKeySequence("F2"), self.list_view)
        edit_suite.setContext(Qt.ShortcutContext.WidgetShortcut)
        edit_suite.activated.connect(self.edit_suite)
        self._update_actions()

    def _update_actions(self) -> None:
        writable = not self.controller.read_only
        suite = self.current_suite()
        case = self.current_case()
        self.new_suite_action.setEnabled(writable)
        self.empty_new_button.setEnabled(writable)
        self.empty_import_button.setEnabled(writable)
        self.import_action.setEnabled(writable)
        self.export_action.setEnabled(bool(self.suites()))
        for action in (self.edit_suite_action, self.duplicate_suite_action):
            action.setEnabled(writable and suite is not None)
        self.delete_suite_action.setEnabled(writable and self.current_name() is not None)
        self.new_case_action.setEnabled(writable and suite is not None)
        for action in (self.edit_case_action, self.duplicate_case_action, self.delete_case_action):
            action.setEnabled(writable and case is not None)
        self.open_case_action.setEnabled(case is not None)

    # authoring ----------------------------------------------------------------------
    def current_suite(self) -> Suite | None:
        name = self.current_name()
        entry = next((e for e in self.list_model.entries() if e.name == name), None)
        return None if entry is None else entry.suite

    def current_case(self) -> SuiteCase | None:
        if self.current_suite() is None:
            return None
        row = self.cases_view.currentIndex().row()
        if not 0 <= row < self.cases_model.rowCount():
            return None
        return self.cases_model.case(row)

    def _push(self, changes: list[SuiteChange], text: str, focus: str | None) -> bool:
        command = SuiteChangesCommand(
            self.controller, changes, text, self.message.emit, focus, self._focus_after
        )
        self.undo_stack.push(command)
        if command.failed:
            return False
        self.message.emit(f"{text} — Ctrl+Z to undo")
        return True

    def _focus_after(self, name: str | None) -> None:
        self.reload()
        if name is not None:
            self.select(name)

    def _changes(self, build: Callable[[], list[SuiteChange]]) -> list[SuiteChange] | None:
        try:
            return build()
        except AxmemError as exc:
            self.message.emit(str(exc))
            ErrorDialog.show(self._widget, "Cannot change the suite", str(exc))
            return None

    @property
    def _suites(self) -> SuiteService:
        return self.controller.workspace.suites

    def new_suite(self) -> bool:
        suites = self._suites
        asked = SuiteDialog.ask(self._widget, "New suite", suites.unique_name("My checks"))
        if asked is None:
            return False
        name, description = asked
        changes = self._changes(lambda: suites.new_changes(Suite(name, (), description)))
        return changes is not None and self._push(changes, f"New suite '{name}'", name)

    def edit_suite(self) -> bool:
        suite = self.current_suite()
        if suite is None:
            return False
        asked = SuiteDialog.ask(self._widget, "Edit suite", suite.name, suite.description)
        if asked is None:
            return False
        name, description = asked
        suites = self._suites
        new = replace(suite, name=name, description=description)
        changes = self._changes(lambda: suites.edit_changes(suite.name, new))
        text = (
            f"Edit suite '{suite.name}'"
            if name == suite.name
            else (f"Rename suite '{suite.name}' to '{name}'")
        )
        return changes is not None and self._push(changes, text, name)

    def duplicate_suite(self) -> bool:
        suite = self.current_suite()
        if suite is None:
            return False
        suites = self._suites
        name = suites.unique_name(f"{suite.name} copy")
        changes = self._changes(lambda: suites.new_changes(replace(suite, name=name)))
        return changes is not None and self._push(
            changes, f"Duplicate suite '{suite.name}' as '{name}'", name
        )

    def delete_suite(self) -> bool:
        name = self.current_name()
        if name is None:
            return False
        suites = self._suites
        changes = self._changes(lambda: suites.remove_changes(name))
        return changes is not None and self._push(changes, f"Delete suite '{name}'", None)

    def new_case(self) -> bool:
        suite = self.current_suite()
        if suite is None:
            return False
        asked = CaseDialog.ask(self._widget, f"New case in '{suite.name}'")
        if asked is None:
            return False
        _suite, case = asked
        return self.add_case(suite.name, case)

    def add_case(self, suite_name: str, case: SuiteCase) -> bool:
        """Add `case` to suite `suite_name`, creating the suite when there is none."""
        suites = self._suites

        def build() -> list[SuiteChange]:
            if not suites.exists(suite_name):
                return suites.new_changes(Suite(suite_name, (case,)))
            return suites.case_changes(suite_name, case)

        changes = self._changes(build)
        if changes is None:
            return False
        pushed = self._push(changes, f"Add case '{case.name}' to suite '{suite_name}'", suite_name)
        if pushed:
            self.select_case(case.name)
        return pushed

    def edit_case(self) -> bool:
        suite, case = self.current_suite(), self.current_case()
        if suite is None or case is None:
            return False
        asked = CaseDialog.ask(self._widget, f"Edit case in '{suite.name}'", case)
        if asked is None:
            return False
        _suite, new = asked
        suites = self._suites
        changes = self._changes(lambda: suites.case_changes(suite.name, new, case.name))
        pushed = changes is not None and self._push(
            changes, f"Edit case '{case.name}' of suite '{suite.name}'", suite.name
        )
        if pushed:
            self.select_case(new.name)
        return pushed

    def duplicate_case(self) -> bool:
        suite, case = self.current_suite(), self.current_case()
        if suite is None or case is None:
            return False
        copy = replace(case, name=unique_case_name(suite, f"{case.name} copy"))
        suites = self._suites
        changes = self._changes(lambda: suites.case_changes(suite.name, copy))
        pushed = changes is not None and self._push(
            changes, f"Duplicate case '{case.name}'", suite.name
        )
        if pushed:
            self.select_case(copy.name)
        return pushed

    def delete_case(self) -> bool:
        suite, case = self.current_suite(), self.current_case()
        if suite is None or case is None:
            return False
        suites = self._suites
        changes = self._changes(lambda: suites.case_changes(suite.name, None, case.name))
        return changes is not None and self._push(
            changes, f"Delete case '{case.name}' from suite '{suite.name}'", suite.name
        )

    def import_suites(self, path: Path | None = None) -> bool:
        if path is None:
            path = SuiteFileDialog.ask_open(self._widget, str(self.controller.path.parent))
            if path is None:
                return False
        service = self._suites

        def build() -> list[SuiteChange]:
            return service.import_changes(read_suite_file(path), replace_existing=True)

        changes = self._changes(build)
        if changes is None:
            return False
        replaced = [c.name for c in changes if c.before is not None]
        text = f"Import {len(changes)} suite(s) from {path.name}"
        if replaced:
            text += f" (replacing {', '.join(replaced)})"
        return self._push(changes, text, changes[0].name if changes else None)

    def export_suites(self, path: Path | None = None) -> Path | None:
        suites = self.suites()
        if not suites:
            self.message.emit("No suites to export.")
            return None
        if path is None:
            start = str(self.controller.path.parent / "suites.json")
            path = SuiteFileDialog.ask_save(self._widget, start)
            if path is None:
                return None
        try:
            write_suite_file(path, suites)
        except AxmemError as exc:
            ErrorDialog.show(self._widget, "Cannot export suites", str(exc))
            return None
        self.message.emit(f"Exported {len(suites)} suite(s) to {path}")
        return path

    def select_case(self, case_name: str) -> None:
        for row in range(self.cases_model.rowCount()):
            if self.cases_model.case(row).name == case_name:
                self.cases_view.selectRow(row)
                return

    def add_case_from_bench(
        self, kind: str, searches: list[str], loaded: list[str], returned: list[str]
    ) -> bool:
        """ "Add as case…" in the bench: the call as a case, expecting what it returns now
        (the user edits the expectations in the dialog), into a suite of the user's choice."""
        names = [e.name for e in self.list_model.entries()]
        suite_name = self.current_name() or (names[0] if names else "My checks")
        target = next((e.suite for e in self.list_model.entries() if e.name == suite_name), None)
        base = " / ".join(s.strip() for s in searches)[:60] or "new case"
        case_name = unique_case_name(target, base) if target is not None else base
        proposed = SuiteCase(
            name=case_name,
            kind="recall" if kind == "recall" else "discover",
            searches=tuple(searches),
            must_include=tuple(returned),
            loaded=tuple(loaded) if kind == "recall" else (),
        )
        asked = CaseDialog.ask(self._widget, "Add as case", proposed, names, suite_name)
        if asked is None:
            return False
        chosen, case = asked
        return self.add_case(chosen, case)

    def open_case_in_bench(self) -> None:
        index = self.cases_view.currentIndex()
        if index.isValid():
            self._open_in_bench(index)
