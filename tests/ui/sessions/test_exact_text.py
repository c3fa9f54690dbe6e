"""The exact text views of a session: a text Qt cannot lay out in reasonable time is
shown cut and says so, while `text()` and Copy keep it exact."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from axmem_gui.ui.sessions import exact_text
from axmem_gui.ui.sessions.exact_text import SHOWN_LINE, ExactTextView, shown_text


def test_a_prompt_on_one_huge_line_is_shown_cut_and_copied_whole(qtbot: QtBot) -> None:
    """A 30 MB system prompt on one line froze the window for 20 s (Qt lays a line out
    in one piece)."""
    view = ExactTextView("System prompt")
    qtbot.addWidget(view)
    huge = "<identity>\nrole: ops\n" + "word " * (3 * SHOWN_LINE) + "\n</identity>"
    view.set_text(huge)
    shown = view.edit.toPlainText()
    assert shown.split("\n")[2] == huge.split("\n")[2][:SHOWN_LINE]  # the long line, cut
    assert shown.split("\n")[:2] == huge.split("\n")[:2]  # the others whole
    assert shown.split("\n")[3] == "</identity>"
    assert view.text() == huge
    assert "shown cut" in view.stats.text() and f"{len(huge):,} chars" in view.stats.text()
    view.copy()
    assert QGuiApplication.clipboard().text() == huge


def test_what_qt_can_lay_out_is_shown_exactly(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = ExactTextView()
    qtbot.addWidget(view)
    text = ("a line of text\n" * 20_000) + "é\U0001f680"
    view.set_text(text)
    assert view.edit.toPlainText() == text and view.text() == text
    assert "shown cut" not in view.stats.text()
    monkeypatch.setattr(exact_text, "SHOWN_TOTAL", 1000)
    assert shown_text(text) == (text[:1000], True)
