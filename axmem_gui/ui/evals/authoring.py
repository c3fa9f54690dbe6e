"""Authoring eval sets on the Evals page: new, edit, delete a set; new, edit, delete a
case. Each is one undoable command on the window's undo stack, written through the evals
service (the one `axmem eval add` uses), which checks the store still holds what the user
saw: a set changed elsewhere meanwhile is refused with a message, never overwritten."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import QWidget

from axmem_gui.core.errors import AxmemError, ConflictError
from axmem_gui.core.evals.model import EvalCase, EvalSet
from axmem_gui.core.jsout import json_dumps
from axmem_gui.services.evals import EvalService, EvalSetChange
from axmem_gui.services.workspace import OpenWorkspace
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.evals.dialogs import EvalCaseDialog, EvalSetDialog


class _Controller(Protocol):
    @property
    def workspace(self) -> OpenWorkspace: ...

    def notify_changed(self, what: str = "*") -> None: ...


class EvalSetCommand(QUndoCommand):
    """Applies its changes forward on redo and backward on undo; a refused write makes
    it obsolete so the stack never claims a state the store lacks."""

    def __init__(
        self,
        controller: _Controller,
        changes: Sequence[EvalSetChange],
        text: str,
        report: Callable[[str], None],
        focus: Callable[[str | None, str | None], None],
        after: tuple[str | None, str | None],
        before: tuple[str | None, str | None],
    ) -> None:
        super().__init__(text)
        self.controller = controller
        self.changes = list(changes)
        self.report = report
        self.focus = focus
        self.after = after
        self.before = before
        self.failed = False

    def redo(self) -> None:
        if self._run(self.changes):
            self.focus(*self.after)

    def undo(self) -> None:
        if self._run([c.reversed() for c in reversed(self.changes)]):
            self.focus(*self.before)

    def _run(self, changes: Sequence[EvalSetChange]) -> bool:
        try:
            self.controller.workspace.evals.apply(changes)  # (announces what it wrote)
        except AxmemError as exc:
            self.failed = True
            self.setObsolete(True)
            self.report(str(exc))
            self.controller.notify_changed("evals")  # the page shows the store's sets
            return False
        return True


class MoveCaseCommand(QUndoCommand):
    """One case moved within its set (`EvalService.move_case`). Redo and undo each check
    the set still holds what the step before left (the page's set; the set with the case
    moved), then write once at the revision that check read: a set changed elsewhere
    meanwhile is refused (the command becomes obsolete), never reordered unseen."""

    def __init__(
        self,
        controller: _Controller,
        before: EvalSet,
        case_name: str,
        to: int,
        report: Callable[[str], None],
        focus: Callable[[str | None, str | None], None],
    ) -> None:
        names = [c.name for c in before.cases]
        self.old = names.index(case_name)
        self.new = to
        way = "up" if to < self.old else "down"
        super().__init__(f"Move case '{case_name}' {way} in eval set '{before.name}'")
        cases = list(before.cases)
        cases.insert(to, cases.pop(self.old))
        self.controller = controller
        self.before = before
        self.after = replace(before, cases=tuple(cases))
        self.case_name = case_name
        self.report = report
        self.focus = focus
        self.failed = False

    def redo(self) -> None:
        self._move(self.before, self.new)

    def undo(self) -> None:
        self._move(self.after, self.old)

    def _move(self, seen: EvalSet, to: int) -> None:
        evals = self.controller.workspace.evals
        try:
            stored, revision = evals.set_and_revision(seen.name)
            if stored != seen:
                raise ConflictError(
                    "eval set", seen.name, None, revision,
                    f"eval set '{seen.name}' was changed elsewhere; case "
                    f"'{self.case_name}' was not moved",
                )  # fmt: skip
            evals.move_case(seen.name, self.case_name, to, revision)
        except AxmemError as exc:
            self.failed = True
            self.setObsolete(True)
            self.report(str(exc))
            self.controller.notify_changed("evals")  # the page shows the store's sets
            return
        self.focus(seen.name, self.case_name)  # the selection follows the case


class EvalAuthoring:
    """The authoring actions; `current` gives the selected set and case, `focus` selects
    a set and case after a change (or its undo)."""

    def __init__(
        self,
        controller: _Controller,
        undo_stack: QUndoStack,
        parent: Callable[[], QWidget],
        current: Callable[[], tuple[EvalSet | None, EvalCase | None]],
        focus: Callable[[str | None, str | None], None],
        report: Callable[[str], None],
    ) -> None:
        self.controller = controller
        self.undo_stack = undo_stack
        self.parent = parent
        self.current = current
        self.focus = focus
        self.report = report

    @property
    def service(self) -> EvalService:
        return self.controller.workspace.evals

    def _push(
        self,
        changes: list[EvalSetChange],
        text: str,
        after: tuple[str | None, str | None],
    ) -> bool:
        now_set, now_case = self.current()
        before = (
            None if now_set is None else now_set.name,
            None if now_case is None else now_case.name,
        )
        command = EvalSetCommand(
            self.controller, changes, text, self.report, self.focus, after, before
        )
        self.undo_stack.push(command)
        if command.failed:
            return False
        self.report(f"{text} — Ctrl+Z to undo")
        return True

    def _fail(self, title: str, exc: AxmemError) -> bool:
        self.report(str(exc))
        ErrorDialog.show(self.parent(), title, str(exc))
        return False

    def _case_check(
        self, eval_set: EvalSet, replacing: str | None
    ) -> Callable[[EvalCase], list[str]]:
        others = {c.name for c in eval_set.cases if c.name != replacing}

        def check(case: EvalCase) -> list[str]:
            if case.name in others:
                return [f"the set already has a case named '{case.name}'"]
            return self.service.problems(replace(eval_set, cases=(case,)))

        return check

    def _inputs(self, agent: str) -> Sequence[str] | None:
        try:
            return self.service.agent_inputs(agent)
        except AxmemError as exc:
            self._fail("Cannot edit the case", exc)
            return None

    def _kinds(self, agent: str) -> dict[str, tuple[bool, bool]]:
        """Which inputs are JSON and which optional (nothing known: all text, required)."""
        try:
            return self.service.agent_input_kinds(agent)
        except AxmemError:
            return {}

    # sets ---------------------------------------------------------------------------
    def new_set(self) -> bool:
        service = self.service
        asked = EvalSetDialog.ask(
            self.parent(), "New eval set", service.agent_names(), None, service.names()
        )
        if asked is None:
            return False
        inputs = self._inputs(asked["agent"])
        if inputs is None:
            return False
        draft = EvalSet(cases=(), **_set_fields(asked))
        case = EvalCaseDialog.ask(
            self.parent(), f"First case of '{draft.name}'", inputs,
            self._case_check(draft, None), None, self._kinds(draft.agent),
        )  # fmt: skip
        if case is None:
            return False
        new = replace(draft, cases=(case,))
        return self._push(
            [EvalSetChange(new.name, None, new)],
            f"New eval set '{new.name}'",
            (new.name, case.name),
        )

    def edit_set(self) -> bool:
        eval_set, _case = self.current()
        if eval_set is None:
            return False
        service = self.service
        taken = [n for n in service.names() if n != eval_set.name]
        values = eval_set.to_json()
        asked = EvalSetDialog.ask(
            self.parent(), "Edit eval set", service.agent_names(), values, taken
        )
        if asked is None:
            return False
        new = replace(eval_set, **_set_fields(asked))
        # As JSON text, like a case (`1 == 1.0 == True` to Python): saved unchanged, the
        # set was written again, a new revision and an undo step for nothing.
        if json_dumps(new.to_json()) == json_dumps(eval_set.to_json()):
            self.report(f"Eval set '{eval_set.name}': nothing changed")
            return False
        try:
            problems = service.problems(new)
        except AxmemError as exc:
            return self._fail("Cannot change the eval set", exc)
        if problems and new.agent != eval_set.agent:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            return self._fail(
                "Cannot change the eval set",
                AxmemError(f"agent '{new.agent}' cannot run this set: {problems[0]}{more}"),
            )
        if new.name == eval_set.name:
            changes = [EvalSetChange(new.name, eval_set, new)]
            text = f"Edit eval set '{new.name}'"
        else:
            changes = [
                EvalSetChange(eval_set.name, eval_set, None),
                EvalSetChange(new.name, None, new),
            ]
            text = f"Rename eval set '{eval_set.name}' to '{new.name}'"
        return self._push(changes, text, (new.name, None))

    def delete_set(self) -> bool:
        eval_set, _case = self.current()
        if eval_set is None:
            return False
        return self._push(
            [EvalSetChange(eval_set.name, eval_set, None)],
            f"Delete eval set '{eval_set.name}'",
            (None, None),
        )

    # cases --------------------------------------------------------------------------
    def new_case(self) -> bool:
        eval_set, _case = self.current()
        if eval_set is None:
            return False
        inputs = self._inputs(eval_set.agent)
        if inputs is None:
            return False
        case = EvalCaseDialog.ask(
            self.parent(), f"New case in '{eval_set.name}'", inputs,
            self._case_check(eval_set, None), None, self._kinds(eval_set.agent),
        )  # fmt: skip
        if case is None:
            return False
        new = replace(eval_set, cases=(*eval_set.cases, case))
        return self._push(
            [EvalSetChange(new.name, eval_set, new)],
            f"Add case '{case.name}' to eval set '{new.name}'",
            (new.name, case.name),
        )

    def edit_case(self) -> bool:
        eval_set, case = self.current()
        if eval_set is None or case is None:
            return False
        inputs = self._inputs(eval_set.agent)
        if inputs is None:
            return False
        edited = EvalCaseDialog.ask(
            self.parent(), f"Edit case in '{eval_set.name}'", inputs,
            self._case_check(eval_set, case.name), case, self._kinds(eval_set.agent),
        )  # fmt: skip
        if edited is None:
            return False
        # As JSON text: `1 == 1.0 == True` to Python, and the inputs' order is kept.
        if json_dumps(edited.to_json()) == json_dumps(case.to_json()):
            self.report(f"Case '{case.name}': nothing changed")
            return False
        cases = tuple(edited if c.name == case.name else c for c in eval_set.cases)
        new = replace(eval_set, cases=cases)
        return self._push(
            [EvalSetChange(new.name, eval_set, new)],
            f"Edit case '{case.name}' of eval set '{new.name}'",
            (new.name, edited.name),
        )

    def move_case(self, by: int) -> bool:
        """The selected case `by` places down (up when negative), within its set."""
        eval_set, case = self.current()
        if eval_set is None or case is None:
            return False
        to = eval_set.cases.index(case) + by
        if not 0 <= to < len(eval_set.cases):
            return False
        command = MoveCaseCommand(self.controller, eval_set, case.name, to, self.report, self.focus)
        self.undo_stack.push(command)
        if command.failed:
            return False
        self.report(f"{command.text()} — Ctrl+Z to undo")
        return True

    def delete_case(self) -> bool:
        eval_set, case = self.current()
        if eval_set is None or case is None:
            return False
        if len(eval_set.cases) == 1:
            self.report(
                f"'{case.name}' is the only case of '{eval_set.name}': a set needs one; "
                "delete the set instead"
            )
            return False
        new = replace(eval_set, cases=tuple(c for c in eval_set.cases if c.name != case.name))
        return self._push(
            [EvalSetChange(new.name, eval_set, new)],
            f"Delete case '{case.name}' from eval set '{new.name}'",
            (new.name, None),
        )


def _set_fields(values: dict[str, Any]) -> dict[str, Any]:
    return {k: values[k] for k in ("name", "agent", "description", "repeat", "threshold")}
