"""Dialogs of the Evals page: an eval set's own fields (name, agent, description, runs per
case, threshold) and one case (its name, a value for each of the agent's inputs, the
skills and memories to load and to avoid). Each checks what it holds the way the CLI reads
a JSON file, then the way a run checks it against the workspace (`check` callback), so a
set saved here runs. Each has an `ask` classmethod that tests drive or replace."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from axmem_gui.core.errors import InputError
from axmem_gui.core.evals.model import (
    DEFAULT_REPEAT,
    DEFAULT_THRESHOLD,
    MAX_REPEAT,
    EvalCase,
    case_from_json_value,
)
from axmem_gui.services.evals import check_set_name
from axmem_gui.ui.evals.input_edit import ABSENT, InputValueEdit
from axmem_gui.ui.form_dialog import FormDialog, split_list

#: What a case dialog asks of the page: the problems of this case in its set (empty: fine).
CaseCheck = Callable[[EvalCase], Sequence[str]]


class EvalSetDialog(FormDialog):
    """A set's own fields; its cases are edited one by one."""

    def __init__(
        self,
        parent: QWidget | None,
        title: str,
        agents: Sequence[str],
        values: dict[str, Any] | None = None,
        taken: Sequence[str] = (),
    ) -> None:
        super().__init__(parent, title, "Next" if values is None else "Save")
        self._taken = set(taken)
        v = values or {}
        self.name_edit = QLineEdit(str(v.get("name", "")))
        self.name_edit.setObjectName("evalSetName")
        self.name_edit.selectAll()
        self.agent_combo = QComboBox()
        self.agent_combo.setObjectName("evalSetAgent")
        self.agent_combo.addItems(list(agents))
        if "agent" in v:
            self.agent_combo.setCurrentText(str(v["agent"]))
        self.agent_combo.setToolTip("The workspace agent that runs every case of the set")
        self.description_edit = QLineEdit(str(v.get("description", "")))
        self.description_edit.setPlaceholderText("What the set checks (optional)")
        self.repeat_spin = QSpinBox()
        self.repeat_spin.setObjectName("evalSetRepeat")
        self.repeat_spin.setRange(1, MAX_REPEAT)
        self.repeat_spin.setValue(int(v.get("repeat", DEFAULT_REPEAT)))
        self.repeat_spin.setToolTip("Agent runs per case (a case may say otherwise)")
        self._threshold = float(v.get("threshold", DEFAULT_THRESHOLD))
        self.threshold_spin = _percent_spin(self._threshold)
        self.form.addRow("Name", self.name_edit)
        self.form.addRow("Agent", self.agent_combo)
        self.form.addRow("Description", self.description_edit)
        self.form.addRow("Runs per case", self.repeat_spin)
        self.form.addRow("Pass when", self.threshold_spin)
        self.name_edit.setFocus()
        self.resize(460, 0)

    def check(self) -> None:
        name = check_set_name(self.name_edit.text())
        if name in self._taken:
            raise InputError(f"an eval set named '{name}' already exists; choose another name")
        if not self.agent_combo.currentText():
            raise InputError("the workspace has no agent to run the set: add one first")

    def values(self) -> dict[str, Any]:
        return {
            "name": self.name_edit.text().strip(),
            "agent": self.agent_combo.currentText(),
            "description": self.description_edit.text().strip(),
            "repeat": self.repeat_spin.value(),
            "threshold": _kept(self.threshold_spin, self._threshold),
        }

    @classmethod
    def ask(
        cls,
        parent: QWidget | None,
        title: str,
        agents: Sequence[str],
        values: dict[str, Any] | None = None,
        taken: Sequence[str] = (),
    ) -> dict[str, Any] | None:
        dialog = cls(parent, title, agents, values, taken)
        try:
            return dialog.values() if dialog.exec() == QDialog.DialogCode.Accepted else None
        finally:
            dialog.deleteLater()


def _percent_spin(fraction: float | None, unset: str = "") -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setObjectName("evalThreshold")
    spin.setDecimals(0)
    spin.setRange(-1 if unset else 0, 100)
    spin.setSuffix(" % of runs")
    if unset:
        spin.setSpecialValueText(unset)
    spin.setValue(-1 if fraction is None else round(fraction * 100))
    spin.setToolTip("The share of runs that must load what the case wants and nothing it avoids")
    return spin


def _kept(spin: QDoubleSpinBox, old: float | None) -> float:
    """The spin's share of runs: whole percents, so a stored 0.675 shows as 68 % and stays
    0.675 unless the percent is changed."""
    if old is not None and spin.value() == round(old * 100):
        return old
    return round(spin.value() / 100, 4)


class EvalCaseDialog(FormDialog):
    """One case of a set run by an agent with the input fields `inputs`."""

    def __init__(
        self,
        parent: QWidget | None,
        title: str,
        inputs: Sequence[str],
        check: CaseCheck,
        case: EvalCase | None = None,
        kinds: Mapping[str, tuple[bool, bool]] | None = None,
    ) -> None:
        super().__init__(parent, title, "Save case")
        kinds = kinds or {}
        self._check = check
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("evalCaseName")
        self.form.addRow("Case name", self.name_edit)
        self.input_edits: dict[str, InputValueEdit] = {}
        for field in inputs:
            as_json, optional = kinds.get(field, (False, False))
            edit = InputValueEdit(field, 3, optional=optional)
            if as_json and case is None:
                edit.start_as_json()
            edit.changed.connect(self._refresh_save)
            self.input_edits[field] = edit
            self.form.addRow(f"Input: {field}", edit)
        self._case: EvalCase | None = None
        self.lists: dict[tuple[str, str], QLineEdit] = {}
        for kind, noun in (("skills", "Skills"), ("memories", "Memories")):
            for side, verb in (("load", "to load"), ("avoid", "to avoid")):
                ids = QLineEdit()
                ids.setObjectName(f"evalCase_{kind}_{side}")
                ids.setPlaceholderText("ids, separated by commas")
                self.lists[(kind, side)] = ids
                self.form.addRow(f"{noun} {verb}", ids)
        self.repeat_spin = QSpinBox()
        self.repeat_spin.setRange(0, MAX_REPEAT)
        self.repeat_spin.setSpecialValueText("as the set says")
        self.threshold_spin = _percent_spin(None, "as the set says")
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("Why this case matters (optional)")
        self.form.addRow("Runs", self.repeat_spin)
        self.form.addRow("Pass when", self.threshold_spin)
        self.form.addRow("Note", self.note_edit)
        if case is not None:
            self.set_case(case)
        self.name_edit.setFocus()
        self.resize(560, 0)

    def set_case(self, case: EvalCase) -> None:
        self._case = case
        self.name_edit.setText(case.name)
        for field, value_edit in self.input_edits.items():
            value_edit.set_value(case.inputs.get(field, ""))
        for (kind, side), edit in self.lists.items():
            edit.setText(", ".join(getattr(case.expectation(kind), side)))
        self.repeat_spin.setValue(case.repeat or 0)
        self.threshold_spin.setValue(-1 if case.threshold is None else round(case.threshold * 100))
        self.note_edit.setText(case.note)

    def _refresh_save(self) -> None:
        """Save waits until every JSON input parses (each says what is wrong under it)."""
        ok = not any(e.problem() for e in self.input_edits.values())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def _inputs(self) -> dict[str, Any]:
        """Each input's value, in the order the case held them (then the agent's order):
        an unchanged case is stored byte for byte as it was."""
        held = list(self._case.inputs) if self._case is not None else []
        order = [f for f in held if f in self.input_edits]
        order += [f for f in self.input_edits if f not in order]
        values = {f: self.input_edits[f].value() for f in order}
        return {f: v for f, v in values.items() if v is not ABSENT}

    def _threshold(self) -> float | None:
        old = None if self._case is None else self._case.threshold
        return None if self.threshold_spin.value() < 0 else _kept(self.threshold_spin, old)

    def case(self) -> EvalCase:
        """The case as entered; InputError names the field that is wrong."""
        value: dict[str, Any] = {
            "name": self.name_edit.text().strip(),
            "inputs": self._inputs(),
        }
        for kind in ("skills", "memories"):
            value[kind] = {
                side: split_list(self.lists[(kind, side)].text()) for side in ("load", "avoid")
            }
        if self.repeat_spin.value() > 0:
            value["repeat"] = self.repeat_spin.value()
        threshold = self._threshold()
        if threshold is not None:
            value["threshold"] = threshold
        note = self.note_edit.text()
        if self._case is None or note != self._case.note:
            note = note.strip()
        if note:
            value["note"] = note
        return case_from_json_value(value, "case")

    def check(self) -> None:
        case = self.case()
        problems = list(self._check(case))
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InputError(f"{problems[0]}{more}")

    def show_problem(self, text: str) -> None:
        super().show_problem(text.removeprefix("case: "))

    @classmethod
    def ask(
        cls,
        parent: QWidget | None,
        title: str,
        inputs: Sequence[str],
        check: CaseCheck,
        case: EvalCase | None = None,
        kinds: Mapping[str, tuple[bool, bool]] | None = None,
    ) -> EvalCase | None:
        dialog = cls(parent, title, inputs, check, case, kinds)
        try:
            return dialog.case() if dialog.exec() == QDialog.DialogCode.Accepted else None
        finally:
            dialog.deleteLater()
