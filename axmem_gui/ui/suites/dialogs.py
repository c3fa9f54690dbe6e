"""Dialogs of the suites page: a suite's name and description, one case's fields, and the
files to import from or export to. Each has an `ask` classmethod that tests replace."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QWidget,
)

from axmem_gui.core.catalog import searched_by
from axmem_gui.core.suites import CASE_KINDS, SuiteCase, case_from_json_value
from axmem_gui.services.suites import check_suite_name
from axmem_gui.ui import file_dialogs
from axmem_gui.ui.form_dialog import FormDialog, split_list


class SuiteDialog(FormDialog):
    """A suite's name and description (new, edit)."""

    def __init__(
        self, parent: QWidget | None, title: str, name: str = "", description: str = ""
    ) -> None:
        super().__init__(parent, title)
        self.name_edit = QLineEdit(name)
        self.name_edit.setObjectName("suiteName")
        self.name_edit.selectAll()
        self.description_edit = QLineEdit(description)
        self.description_edit.setPlaceholderText("What these cases check (optional)")
        self.form.addRow("Name", self.name_edit)
        self.form.addRow("Description", self.description_edit)
        self.resize(460, 0)

    def check(self) -> None:
        check_suite_name(self.name_edit.text())

    def values(self) -> tuple[str, str]:
        return self.name_edit.text().strip(), self.description_edit.text().strip()

    @classmethod
    def ask(
        cls, parent: QWidget | None, title: str, name: str = "", description: str = ""
    ) -> tuple[str, str] | None:
        dialog = cls(parent, title, name, description)
        try:
            if dialog.exec() == QDialog.DialogCode.Accepted:
                return dialog.values()
            return None
        finally:
            dialog.deleteLater()


class CaseDialog(FormDialog):
    """One case: its name, the call (kind, search strings, loaded ids) and what must and
    must not come back. With `suites`, it also asks which suite (or a new one) gets it."""

    def __init__(
        self,
        parent: QWidget | None,
        title: str,
        case: SuiteCase | None = None,
        suites: list[str] | None = None,
        suite: str = "",
    ) -> None:
        super().__init__(parent, title, "Save case")
        self.suite_combo: QComboBox | None = None
        form = self.form
        if suites is not None:
            combo = QComboBox()
            combo.setObjectName("caseSuite")
            combo.setEditable(True)
            combo.addItems(suites)
            combo.setCurrentText(suite)
            combo.setToolTip("An existing suite, or type a new name to create that suite")
            self.suite_combo = combo
            form.addRow("Suite", combo)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("caseName")
        self.kind_combo = QComboBox()
        for kind in CASE_KINDS:
            self.kind_combo.addItem(f"{kind} ({searched_by(kind)})", kind)
        self.searches_edit = QPlainTextEdit()
        self.searches_edit.setObjectName("caseSearches")
        self.searches_edit.setPlaceholderText("One search string per line")
        self.searches_edit.setTabChangesFocus(True)
        self.searches_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.include_edit = QLineEdit()
        self.include_edit.setObjectName("caseMustInclude")
        self.include_edit.setPlaceholderText("ids that must come back (a, b, …)")
        self.exclude_edit = QLineEdit()
        self.exclude_edit.setPlaceholderText("ids that must not come back (optional)")
        self.loaded_edit = QLineEdit()
        self.loaded_edit.setPlaceholderText("memory ids already loaded (recall only)")
        self.k_spin = QSpinBox()
        self.k_spin.setRange(0, 1000)
        self.k_spin.setSpecialValueText("all results")
        self.k_spin.setToolTip("recall@k cut-off; 'all results' uses what the call can return")
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("Why this case matters (optional)")
        form.addRow("Case name", self.name_edit)
        form.addRow("Call", self.kind_combo)
        form.addRow("Search strings", self.searches_edit)
        form.addRow("Must include", self.include_edit)
        form.addRow("Must exclude", self.exclude_edit)
        form.addRow("Already loaded", self.loaded_edit)
        form.addRow("k", self.k_spin)
        form.addRow("Note", self.note_edit)
        self._loaded_row = form.rowCount() - 3
        self.kind_combo.currentIndexChanged.connect(self._on_kind)
        if case is not None:
            self.set_case(case)
        self._on_kind()
        self.resize(560, 0)

    def set_case(self, case: SuiteCase) -> None:
        self.name_edit.setText(case.name)
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(case.kind))
        self.searches_edit.setPlainText("\n".join(case.searches))
        self.include_edit.setText(", ".join(case.must_include))
        self.exclude_edit.setText(", ".join(case.must_exclude))
        self.loaded_edit.setText(", ".join(case.loaded))
        self.k_spin.setValue(case.k or 0)
        self.note_edit.setText(case.note)

    def _on_kind(self) -> None:
        self.form.setRowVisible(self._loaded_row, self.kind_combo.currentData() == "recall")

    def suite_name(self) -> str:
        return "" if self.suite_combo is None else self.suite_combo.currentText().strip()

    def case(self) -> SuiteCase:
        """The case as entered; InputError names the field that is wrong."""
        kind = str(self.kind_combo.currentData())
        value: dict[str, object] = {
            "name": self.name_edit.text().strip(),
            "kind": kind,
            "searches": [s for s in self.searches_edit.toPlainText().split("\n") if s.strip()],
            "mustInclude": split_list(self.include_edit.text()),
            "mustExclude": split_list(self.exclude_edit.text()),
        }
        if kind == "recall":
            value["loaded"] = split_list(self.loaded_edit.text())
        if self.k_spin.value() > 0:
            value["k"] = self.k_spin.value()
        if self.note_edit.text().strip():
            value["note"] = self.note_edit.text().strip()
        return case_from_json_value(value, "case")

    def check(self) -> None:
        if self.suite_combo is not None:
            check_suite_name(self.suite_name())
        self.case()

    def show_problem(self, text: str) -> None:
        super().show_problem(text.removeprefix("case: "))

    @classmethod
    def ask(
        cls,
        parent: QWidget | None,
        title: str,
        case: SuiteCase | None = None,
        suites: list[str] | None = None,
        suite: str = "",
    ) -> tuple[str, SuiteCase] | None:
        """(suite name — "" without `suites` —, the case) or None when cancelled."""
        dialog = cls(parent, title, case, suites, suite)
        try:
            if dialog.exec() == QDialog.DialogCode.Accepted:
                return dialog.suite_name(), dialog.case()
            return None
        finally:
            dialog.deleteLater()


class SuiteFileDialog:
    """Where to import suites from, or export them to."""

    @classmethod
    def ask_open(cls, parent: QWidget, start: str) -> Path | None:
        path, _ = file_dialogs.get_open_file_name(
            parent, "Import suites", start, "Suite JSON (*.json);;All files (*)"
        )
        return Path(path) if path else None

    @classmethod
    def ask_save(cls, parent: QWidget, start: str) -> Path | None:
        path, _ = file_dialogs.get_save_file_name(
            parent, "Export suites", start, "Suite JSON (*.json)"
        )
        return Path(path) if path else None
