"""A case's inputs keep their JSON type through the case dialog (issue #30, a try-out:
opening a case whose input was `3`, `true`, `["a","b"]` or `{"k":1}` and saving it, even
unchanged, stored the text "3", "True", "['a', 'b']"...). Non-string inputs are edited as
JSON; a round trip open → save leaves the stored set byte for byte as it was; JSON that
does not parse is named per input, Save is disabled and nothing is written."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from PySide6.QtWidgets import QDialogButtonBox

from axmem_gui.core.evals.model import eval_set_from_json_value
from axmem_gui.core.jsout import json_dumps
from axmem_gui.ui.evals import EVALS, EvalsFeature
from axmem_gui.ui.evals.dialogs import EvalCaseDialog, EvalSetDialog
from axmem_gui.ui.main_window import MainWindow
from tests.helpers.store import raw
from tests.ui.evals.test_eval_authoring import answer_dialogs, save

SIGNATURE = (
    "userRequest:string, count:number, urgent:boolean, tags:string[], meta:json, "
    "maybe?:string -> answer:string"
)
#: Stored in this key order (not the signature's), with a threshold the dialog's whole
#: percent cannot show exactly: both must survive an unchanged save.
TYPED_SET: dict[str, Any] = {
    "name": "typed-inputs",
    "agent": "typed",
    "repeat": 1,
    "threshold": 1.0,
    "cases": [
        {
            "name": "json values",
            "inputs": {
                "meta": {"k": 1, "nested": [True, None, 2.5], "text": 'é "q"'},
                "userRequest": "Ship the SDK\nthen tell me",
                "count": 3,
                "urgent": True,
                "tags": ["a", "b"],
                "maybe": None,
            },
            "skills": {"load": ["release-checklist"], "avoid": []},
            "memories": {"load": [], "avoid": []},
            "threshold": 0.675,
        },
        {
            "name": "second",
            "inputs": {
                "userRequest": "Roll back",
                "count": 0,
                "urgent": False,
                "tags": [],
                "meta": {},
                "maybe": "x",
            },
            "skills": {"load": ["rollback-procedure"], "avoid": []},
            "memories": {"load": [], "avoid": []},
        },
    ],
}


def _stored(window: MainWindow) -> tuple[str, int]:
    """The set's row as SQLite holds it: the JSON text and the revision."""
    row = (
        raw(window.controller.workspace)
        .db.execute("SELECT data, revision FROM evals WHERE name = ?", ["typed-inputs"])
        .fetchone()
    )
    return str(row[0]), int(row[1])


@pytest.fixture
def typed(window: MainWindow) -> EvalsFeature:
    """The Evals page with `typed-inputs` selected, its first case current; the set was
    added as `axmem eval add` adds it (through the evals service)."""
    ws = window.controller.workspace
    ops = ws.agents.get("ops-assistant").config
    assert ops is not None
    ws.agents.add(replace(ops, name="typed", signature=SIGNATURE))
    ws.evals.add_sets([eval_set_from_json_value(TYPED_SET)], replace_existing=False)
    window.show_section("evals")
    feature: EvalsFeature = window.feature(EVALS)
    feature.reload("typed-inputs")
    feature.page.case_list.setCurrentRow(0)
    assert feature.selected_set() == "typed-inputs"
    return feature


def _ok(dialog: EvalCaseDialog) -> Any:
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


def test_saving_a_case_unchanged_keeps_the_stored_set_byte_for_byte(
    qtbot: Any, window: MainWindow, typed: EvalsFeature
) -> None:
    before = _stored(window)
    answer_dialogs(save)
    typed.edit_case_action.trigger()
    assert _stored(window) == before  # not rewritten: same bytes, same revision
    assert (
        window.controller.workspace.evals.get_set("typed-inputs").cases[0].inputs
        == (TYPED_SET["cases"][0]["inputs"])
    )
    assert "nothing changed" in typed.page.status.text()


def test_an_edit_keeps_the_type_of_every_input_and_undo_restores_the_bytes(
    qtbot: Any, window: MainWindow, typed: EvalsFeature
) -> None:
    before = _stored(window)

    def edit(dialog: Any) -> None:
        assert isinstance(dialog, EvalCaseDialog)
        for field, text in (("count", "4"), ("userRequest", "Ship the SDK")):
            dialog.input_edits[field].text.clear()
            qtbot.keyClicks(dialog.input_edits[field].text, text)
        save(dialog)

    answer_dialogs(edit)
    typed.edit_case_action.trigger()
    data, revision = _stored(window)
    assert revision == before[1] + 1
    stored = window.controller.workspace.evals.get_set("typed-inputs")
    inputs = stored.cases[0].inputs
    assert inputs == {**TYPED_SET["cases"][0]["inputs"], "count": 4, "userRequest": "Ship the SDK"}
    assert list(inputs) == list(TYPED_SET["cases"][0]["inputs"])  # the stored order
    assert stored.cases[0].threshold == 0.675
    assert '"count":4,' in data and '"urgent":true,' in data and '"maybe":null' in data
    window.undo_stack.undo()
    assert _stored(window)[0] == before[0]


def test_json_that_does_not_parse_is_named_and_nothing_is_written(
    qtbot: Any, window: MainWindow, typed: EvalsFeature
) -> None:
    before = _stored(window)
    states: list[tuple[str, bool, str]] = []

    def break_it(dialog: Any) -> None:
        assert isinstance(dialog, EvalCaseDialog)
        tags = dialog.input_edits["tags"]
        tags.text.clear()
        qtbot.keyClicks(tags.text, '["a", "b"')
        states.append((tags.error.text(), _ok(dialog).isEnabled(), dialog.problem.text()))
        dialog.accept()  # Enter, or a Save that slipped through: refused the same way
        states.append((tags.error.text(), _ok(dialog).isEnabled(), dialog.problem.text()))
        dialog.input_edits["count"].text.clear()
        states.append((dialog.input_edits["count"].error.text(), _ok(dialog).isEnabled(), ""))
        dialog.reject()

    answer_dialogs(break_it)
    typed.edit_case_action.trigger()
    message = "input 'tags': not valid JSON (line 1, column 10: Expecting ',' delimiter)"
    assert states[0][:2] == (message, False)
    assert states[1][1:] == (False, message)
    assert states[2][0].startswith("input 'count': empty") and not states[2][1]
    assert _stored(window) == before


def test_the_json_switch_turns_a_text_input_into_a_typed_value(
    qtbot: Any, window: MainWindow, typed: EvalsFeature
) -> None:
    typed.page.case_list.setCurrentRow(1)

    def switch(dialog: Any) -> None:
        assert isinstance(dialog, EvalCaseDialog)
        # Non-strings are shown as JSON, strings as the text itself.
        shown = {f: e.text.toPlainText() for f, e in dialog.input_edits.items()}
        assert shown == {
            "userRequest": "Roll back", "count": "0", "urgent": "false", "tags": "[]",
            "meta": "{}", "maybe": "x",
        }  # fmt: skip
        maybe = dialog.input_edits["maybe"]
        assert not maybe.json_box.isChecked()  # "x" is a string
        maybe.json_box.setChecked(True)
        assert maybe.text.toPlainText() == '"x"'  # the same value, written as JSON
        maybe.text.clear()
        qtbot.keyClicks(maybe.text, '"level\\n2"')
        meta = dialog.input_edits["meta"]
        assert meta.json_box.isChecked()
        meta.json_box.setChecked(False)  # an object kept as its JSON text, now a string
        save(dialog)

    answer_dialogs(switch)
    typed.edit_case_action.trigger()
    inputs = window.controller.workspace.evals.get_set("typed-inputs").cases[1].inputs
    assert inputs["maybe"] == "level\n2"
    assert inputs["meta"] == "{}"  # (a json input takes a string too)
    assert inputs["count"] == 0 and inputs["urgent"] is False and inputs["tags"] == []


def test_a_value_the_agent_would_refuse_is_named_and_not_saved(
    qtbot: Any, window: MainWindow, typed: EvalsFeature
) -> None:
    """The try-out saved cases no run could use: "3" typed as text for a number, ""
    for a boolean. axllm's own input check now runs before a case is saved (and before a
    set runs, from the CLI too), and a new case offers non-text inputs as JSON."""
    before = _stored(window)
    states: list[str] = []

    def refuse(dialog: Any) -> None:
        tags = dialog.input_edits["tags"]
        tags.json_box.setChecked(False)  # ["a", "b"] as a string: not a list
        _ok(dialog).click()
        states.append(dialog.problem.text())
        dialog.reject()

    answer_dialogs(refuse)
    typed.edit_case_action.trigger()
    assert len(states) == 1 and states[0].endswith("input.tags must be an array"), states
    assert _stored(window) == before

    seen: dict[str, bool] = {}

    def new_case(dialog: Any) -> None:
        seen.update({f: e.json_box.isChecked() for f, e in dialog.input_edits.items()})
        dialog.name_edit.setText("typed from scratch")
        qtbot.keyClicks(dialog.input_edits["userRequest"].text, "Ship it")
        qtbot.keyClicks(dialog.input_edits["count"].text, "3")
        qtbot.keyClicks(dialog.input_edits["urgent"].text, "true")
        qtbot.keyClicks(dialog.input_edits["tags"].text, '["a"]')
        qtbot.keyClicks(dialog.input_edits["meta"].text, "{}")
        dialog.lists[("skills", "load")].setText("release-checklist")
        # `maybe` is optional: left empty, the case leaves it out
        save(dialog)
        if dialog.isVisible():  # Save refused: say why (the test fails), close it
            seen["refused: " + dialog.problem.text()] = True
            dialog.reject()

    answer_dialogs(new_case)
    typed.new_case_action.trigger()
    assert seen == {
        "userRequest": False, "count": True, "urgent": True, "tags": True, "meta": True,
        "maybe": False,
    }  # fmt: skip
    added = window.controller.workspace.evals.get_set("typed-inputs").cases[-1]
    assert added.name == "typed from scratch"
    assert added.inputs == {
        "userRequest": "Ship it", "count": 3, "urgent": True, "tags": ["a"], "meta": {},
    }  # fmt: skip


def test_switching_json_off_and_on_again_is_no_edit(qtbot: Any) -> None:
    case = eval_set_from_json_value(TYPED_SET).cases[0]
    dialog = EvalCaseDialog(None, "Edit case", list(case.inputs), lambda _c: [], case)
    qtbot.addWidget(dialog)
    for edit in dialog.input_edits.values():
        edit.json_box.toggle()
        assert not edit.problem()  # every value has a spelling in the other notation
        edit.json_box.toggle()
    assert json_dumps(dialog.case().to_json()) == json_dumps(case.to_json())
    assert dialog.input_edits["count"].json_box.isChecked()
    assert dialog.input_edits["userRequest"].text.toPlainText() == "Ship the SDK\nthen tell me"


def test_the_set_dialog_keeps_a_threshold_its_whole_percents_cannot_show(qtbot: Any) -> None:
    values = {**TYPED_SET, "threshold": 0.675}
    dialog = EvalSetDialog(None, "Edit eval set", ["typed"], values, [])
    qtbot.addWidget(dialog)
    assert dialog.threshold_spin.value() == 68
    assert dialog.values()["threshold"] == 0.675
    dialog.threshold_spin.setValue(70)
    assert dialog.values()["threshold"] == 0.7


def test_saving_a_set_unchanged_writes_nothing(window: MainWindow, typed: EvalsFeature) -> None:
    """A try-out: Edit… then Save on a set, nothing changed, wrote it again (a new
    revision, a new `updated_at` and an undo step for nothing). A case did not."""
    before = _stored(window)
    steps = window.undo_stack.count()
    answer_dialogs(save)
    typed.edit_set_action.trigger()
    assert _stored(window) == before
    assert window.undo_stack.count() == steps
