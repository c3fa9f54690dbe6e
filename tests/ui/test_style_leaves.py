"""The look's style sheets are set on the widgets their rules name, not on containers or
the application (issue #16: a style sheet on the application or a container sends every
widget under it through Qt's style-sheet style, ~130 ms of CPU before the first paint).
Every widget a rule names must still get that rule, in its own sheet or an ancestor's."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QLabel, QWidget

from axmem_gui.ui.bench.panel import BenchPanel
from axmem_gui.ui.editor.form import EntryForm
from axmem_gui.ui.lint.dock import LintDock
from axmem_gui.ui.lint.panel import LintPanel
from axmem_gui.ui.preview.panel import PreviewPanel
from axmem_gui.ui.resources import _rules, _selects, style_leaves
from axmem_gui.ui.scenarios.page import ScenariosPage
from axmem_gui.ui.suites.page import SuitesPage
from tests.ui.conftest import WindowFactory

#: Which views each sheet was written for (the containers that used to carry it).
SCOPES: dict[str, tuple[type[QWidget], ...]] = {
    "retrieval": (BenchPanel, PreviewPanel, SuitesPage, ScenariosPage),
    "editor": (EntryForm,),
    "lint": (LintDock, LintPanel),
}


def _sheets_over(widget: QWidget) -> str:
    sheets = []
    at: QWidget | None = widget
    while at is not None:
        sheets.append(at.styleSheet())
        at = at.parentWidget()
    return "\n".join(sheets)


def _unstyled(roots: list[QWidget], name: str) -> list[str]:
    missing = []
    for root in roots:
        for widget in (root, *root.findChildren(QWidget)):
            for selectors, text in _rules(name):
                block = text[text.index("{") :]
                if any(_selects(widget, s) for s in selectors) and block not in _sheets_over(
                    widget
                ):
                    missing.append(f"{name}: {type(widget).__name__}#{widget.objectName()}")
    return missing


def test_every_widget_a_rule_names_has_the_rule(
    qapp: QApplication, make_window: WindowFactory, sample_path: Path
) -> None:
    win = make_window(sample_path)
    for key in list(win.pages):
        win.show_section(key)  # pages made on their first visit too
    assert qapp.styleSheet() == ""  # nothing styles every widget of the application
    missing = _unstyled([win], "base")
    for name, kinds in SCOPES.items():
        roots = [w for w in win.findChildren(QWidget) if isinstance(w, kinds)]
        assert roots, name
        missing += _unstyled(roots, name)
    assert missing == []
    # The views shown at the first paint carry no container sheet any more.
    shown = (BenchPanel, PreviewPanel, EntryForm, LintDock, LintPanel)
    containers = [w for w in win.findChildren(QWidget) if isinstance(w, shown)]
    assert containers and all(w.styleSheet() == "" for w in containers)


def test_the_view_rules_win_over_base_on_one_widget(qapp: QApplication) -> None:
    """"base" comes first whichever order the sheets are given in: a view's own rules win
    where both say something, as they did over the application's sheet."""
    del qapp
    form = QWidget()
    label = QLabel(form)
    label.setObjectName("sectionTitle")
    style_leaves(form, "editor")
    style_leaves(form, "base")
    sheet = label.styleSheet()
    assert sheet.index("11pt") < sheet.index("padding: 2px 0px")  # base's, then editor's
    assert form.styleSheet() == ""
    style_leaves(form, "base", "editor")
    assert label.styleSheet() == sheet  # given once
