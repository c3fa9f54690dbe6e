"""A form dialog never outgrows its screen: the form scrolls, Save stays in reach (a case
of an agent with seven inputs made the case dialog taller than a 768-pixel screen)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QDialogButtonBox

from axmem_gui.ui.evals.dialogs import EvalCaseDialog
from axmem_gui.ui.screen_fit import screen_room


def test_a_tall_case_dialog_fits_the_screen_and_scrolls(qtbot: Any) -> None:
    inputs = [f"input{i}" for i in range(14)]
    dialog = EvalCaseDialog(None, "New case", inputs, lambda case: [])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    room = screen_room(dialog)
    content = dialog.form_area.widget()
    assert content is not None and content.sizeHint().height() > room.height()  # tall
    assert dialog.height() <= room.height()
    save = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    bottom = save.mapTo(dialog, QPoint(0, save.height())).y()
    assert bottom <= dialog.height()  # Save in reach
    last = dialog.input_edits["input13"]
    assert last.visibleRegion().isEmpty()  # below the fold…
    dialog.form_area.ensureWidgetVisible(last)
    assert not last.visibleRegion().isEmpty()  # …and scrolled to
    assert dialog.focusWidget() is dialog.name_edit  # the first input, in the scrolled form


def test_a_short_form_dialog_shows_whole_without_a_scroll_bar(qtbot: Any) -> None:
    dialog = EvalCaseDialog(None, "New case", ["userRequest"], lambda case: [])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    area, content = dialog.form_area, dialog.form_area.widget()
    assert content is not None
    qtbot.waitUntil(lambda: not area.verticalScrollBar().isVisible())  # once laid out
    assert area.viewport().height() >= content.sizeHint().height()
