"""Issue #30: a live theme switch restyles every page, dock and dialog.

Light→Dark left the Evals page and the context-map tree light, and enabled toolbar
buttons ("Add item", "New case") near-invisible; Dark→Light left the navigator and the
bench dark and the suite headings invisible, until a restart. Widgets styled by a style
sheet kept the palette they were polished with. Here every page is built in one theme,
the theme is switched both ways, and each page is grabbed and its widgets' colours
checked against the new palette."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QImage, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QLabel,
    QWidget,
)

from axmem_gui.ui.help import HELP
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.theme import apply_theme

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")

#: Widgets whose colours are their own on purpose (a banner in the highlight colour).
OWN_COLOURS = {"readOnlyBanner"}


def _lightness(image: QImage) -> float:
    """The mean lightness of a grab, sampled on a grid."""
    step = 7
    values = [
        image.pixelColor(x, y).lightness()
        for x in range(0, image.width(), step)
        for y in range(0, image.height(), step)
    ]
    return sum(values) / max(1, len(values))


def _off_theme(root: QWidget, dark: bool) -> list[str]:
    """Visible widgets under `root` whose text or background is of the other theme."""
    wrong: list[str] = []

    def bad_text(lightness: int) -> bool:  # (muted text, placeholder grey, is fine)
        return lightness < 100 if dark else lightness > 160

    def bad_base(lightness: int) -> bool:
        return lightness > 110 if dark else lightness < 150

    for widget in (root, *root.findChildren(QWidget)):
        if not widget.isVisible() or widget.objectName() in OWN_COLOURS:
            continue
        name = f"{type(widget).__name__}#{widget.objectName()}"
        palette = widget.palette()
        if isinstance(widget, QAbstractScrollArea):
            base = widget.viewport().palette().color(widget.viewport().backgroundRole())
            if widget.viewport().autoFillBackground() and bad_base(base.lightness()):
                wrong.append(f"{name}: background {base.name()}")
        if isinstance(widget, QLabel) and widget.isEnabled() and widget.text():
            color = palette.color(QPalette.ColorGroup.Active, widget.foregroundRole())
            if bad_text(color.lightness()):
                wrong.append(f"{name} {widget.text()[:20]!r}: text {color.name()}")
        if isinstance(widget, QAbstractButton) and widget.text():
            enabled = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.ButtonText)
            disabled = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText)
            if widget.isEnabled() and bad_text(enabled.lightness()):
                wrong.append(f"{name} {widget.text()!r}: button text {enabled.name()}")
            # a disabled button must look dimmer than an enabled one
            window = palette.color(QPalette.ColorRole.Button).lightness()
            if abs(disabled.lightness() - window) >= abs(enabled.lightness() - window):
                wrong.append(f"{name} {widget.text()!r}: disabled looks enabled")
    return sorted(set(wrong))


def _check_every_page(window: MainWindow, dark: bool) -> list[str]:
    problems: list[str] = []
    for key in list(window.pages):
        window.show_section(key)
        QApplication.processEvents()
        image = window.grab().toImage()
        mean = _lightness(image)
        if (mean > 110) if dark else (mean < 150):
            problems.append(f"{key}: the page looks {'light' if dark else 'dark'} ({mean:.0f})")
        problems += [f"{key}: {p}" for p in _off_theme(window, dark)]
    return problems


@pytest.mark.parametrize("first", ["light", "dark"])
def test_switching_the_theme_restyles_every_page_and_dock(
    qtbot: Any, qapp: QApplication, window: MainWindow, first: str
) -> None:
    help_feature = window.feature(HELP)
    try:
        help_feature.set_theme(first)
        for key in list(window.pages):  # every page built (and polished) in `first`
            window.show_section(key)
            QApplication.processEvents()
        other = "dark" if first == "light" else "light"
        help_feature.set_theme(other)
        assert _check_every_page(window, dark=other == "dark") == []
        help_feature.set_theme(first)
        assert _check_every_page(window, dark=first == "dark") == []
    finally:
        apply_theme(qapp, "light")


def test_a_dialog_opened_after_the_switch_has_the_new_colours(
    qtbot: Any, qapp: QApplication, window: MainWindow
) -> None:
    from axmem_gui.ui.suites.dialogs import SuiteDialog

    try:
        window.feature(HELP).set_theme("dark")
        dialog = SuiteDialog(window, "New suite")
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        assert _off_theme(dialog, dark=True) == []
        assert _lightness(dialog.grab().toImage()) < 110
    finally:
        apply_theme(qapp, "light")


def test_a_theme_switch_is_not_an_edit_of_the_open_skill(
    qtbot: Any, qapp: QApplication, window: MainWindow
) -> None:
    # The switch restyled the editors and their text "changed": the open skill said
    # "editing…" with nothing typed.
    from axmem_gui.ui.catalog.feature import CATALOG

    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")
    assert page.form.state_label.text().endswith("saved")
    try:
        for theme in ("dark", "light"):
            window.feature(HELP).set_theme(theme)
            qapp.processEvents()
            assert page.form.state_label.text().endswith("saved"), theme
            assert not page.form.has_pending()
    finally:
        apply_theme(qapp, "light")
