"""Issue #30's last layout faults, as a try-out at 1366×768 (window 1350×693) met them:
the context map's timeline cut its "Chars" header; the Scenarios page hid its turns table
and cut the id fields' placeholders; the Evals page's provider form ended below the
window; the session viewer's ten tabs hid behind scroll arrows and its captions were cut;
Compare showed six aligned calls; the bench grew a row taller in recall and stayed so.

The test screen is 800×800, so the window is resized to the laptop's size after it took
its first layout (as tests/ui/retrieval/test_bench_layout.py does)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDockWidget,
    QLineEdit,
    QPlainTextEdit,
    QStyle,
    QStyleOptionFrame,
    QTabWidget,
    QToolButton,
    QWidget,
)
from pytestqt.qtbot import QtBot

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.services.workspace import open_workspace
from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.contextmap.feature import CONTEXTMAPS
from axmem_gui.ui.evals import EVALS
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.scenarios.feature import SCENARIOS
from axmem_gui.ui.sessions.compare_view import CompareView
from axmem_gui.ui.sessions.controller import SESSIONS
from axmem_gui.ui.sessions.exact_text import ExactTextView
from axmem_gui.ui.settings import AppSettings
from tests.ui.conftest import WindowFactory
from tests.ui.retrieval.test_bench_layout import headers_cut

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")

#: The window of a 1366×768 laptop (the screen less its panel and the title bar).
LAPTOP_WINDOW = QSize(1350, 693)


@pytest.fixture
def evaluated(sample_path: Path) -> Path:
    """The sample workspace after two runs of its eval set (as `make screenshots` makes
    it): thirty context-map snapshots, fourteen sessions, a matrix of two runs."""
    ws = open_workspace(sample_path)
    try:
        for model in ("scripted-a", "scripted-b"):
            ws.evals.run(ws.evals.get_set("ops-triggers"), ProviderSettings("scripted", model))
    finally:
        ws.close()
    return sample_path


def settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


#: Makes the main window at a laptop's size (`path`: the sample workspace by default).
LaptopWindow = Callable[..., MainWindow]


@pytest.fixture
def laptop_window(make_window: WindowFactory, qtbot: QtBot, settings: AppSettings) -> LaptopWindow:
    """The main window at a laptop's size, its welcome strip dismissed ("Got it")."""
    settings.set_welcome_dismissed(True)

    def make(path: Path | None = None) -> MainWindow:
        window = make_window(path)
        window.resize(LAPTOP_WINDOW)
        qtbot.waitUntil(lambda: window.size() == LAPTOP_WINDOW)
        settle()
        return window

    return make


def lines(edit: QPlainTextEdit) -> float:
    return edit.viewport().height() / edit.fontMetrics().lineSpacing()


def test_the_bench_keeps_its_height_in_recall(laptop_window: LaptopWindow) -> None:
    window = laptop_window()
    window.show_section("skills")
    page = window.feature(CATALOG).pages["skills"]
    page.select_id("release-checklist")
    bench = window.feature(BENCH).panel
    dock = window.docks["benchDock"]
    assert isinstance(dock, QDockWidget)
    # The bench as small as it goes: a row more in recall cannot come out of spare room.
    window.resizeDocks([dock], [1], Qt.Orientation.Vertical)
    settle()
    edit = page.form.content.edit
    height, shown = dock.height(), lines(edit)
    assert bench.kind() == "discover"

    window.show_section("memories")  # the bench switches to recall
    assert bench.kind() == "recall" and bench.loaded_edit.isVisible()
    settle()
    assert dock.height() == height
    assert bench.searches_edit.height() > bench.searches_edit.fontMetrics().lineSpacing()
    window.show_section("skills")
    assert bench.kind() == "discover"
    settle()
    assert dock.height() == height
    assert lines(edit) == pytest.approx(shown)


def test_the_context_map_timeline_shows_every_header(
    laptop_window: LaptopWindow, qtbot: QtBot, evaluated: Path
) -> None:
    window = laptop_window(evaluated)
    window.show_section("contextmaps")
    qtbot.waitUntil(lambda: window.pages.built("contextmaps"))
    page = window.feature(CONTEXTMAPS).page
    table = page.timeline_view
    qtbot.waitUntil(lambda: table.isVisible() and table.model().rowCount() > 0)
    settle()
    assert headers_cut(table) == []
    assert table.horizontalScrollBar().maximum() == 0


def placeholder_shown(edit: QLineEdit) -> bool:
    """Whether `edit`'s placeholder fits its text area (QLineEdit keeps 2 pixels each side)."""
    option = QStyleOptionFrame()
    edit.initStyleOption(option)
    area = edit.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, edit)
    margins = edit.textMargins()
    room = area.width() - margins.left() - margins.right() - 2 * 2
    return edit.fontMetrics().horizontalAdvance(edit.placeholderText()) <= room


def rows_in_sight(view: QAbstractItemView) -> float:
    """How many rows of `view` the window shows (a scroll area around it may hide some)."""
    shown = view.viewport().visibleRegion().boundingRect().height()
    return shown / view.visualRect(view.model().index(0, 0)).height()


def test_the_scenarios_page_shows_its_turns_and_whole_placeholders(
    laptop_window: LaptopWindow, qtbot: QtBot
) -> None:
    window = laptop_window()
    window.show_section("scenarios")
    qtbot.waitUntil(lambda: window.pages.built("scenarios"))
    form = window.feature(SCENARIOS).page.form
    qtbot.waitUntil(lambda: form.turns_model.rowCount() > 0 and form.turns_view.isVisible())
    settle()
    assert headers_cut(form.turns_view) == []
    assert form.turns_view.horizontalScrollBar().maximum() == 0
    assert rows_in_sight(form.turns_view) >= 4
    for picker in (form.presets, form.memories):
        assert picker.id_edit.isVisible() and placeholder_shown(picker.id_edit)


def wholly_in_sight(widget: QWidget) -> bool:
    """Shown, and not cut by the window's edge or a scroll area around it."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


def test_the_evals_run_controls_are_whole_in_a_laptop_window(
    laptop_window: LaptopWindow, qtbot: QtBot, evaluated: Path
) -> None:
    window = laptop_window(evaluated)
    window.show_section("evals")
    qtbot.waitUntil(lambda: window.pages.built("evals"))
    page = window.feature(EVALS).page
    qtbot.waitUntil(lambda: page.matrix_model.rowCount() == 2)
    settle()
    form = page.provider_form
    assert form.key_status.isVisible()  # (a keyring here: the form's tallest state)
    for widget in (
        page.local_check,
        form.provider,
        form.model,
        form.base_url,
        form.structured,
        form.timeout,
        form.key_edit,
        form.env_edit,
        form.test_button,
        page.repeat,
        page.parallel,
        page.run_button,
        page.cancel_button,
    ):
        assert wholly_in_sight(widget), widget
    assert window.size() == LAPTOP_WINDOW  # the page did not make the window taller


def tabs_whole(tabs: QTabWidget) -> list[str]:
    """The titles of `tabs` not shown whole: past the bar's right end or behind its scroll
    arrows (the bar shows arrows only when the tabs do not fit)."""
    bar = tabs.tabBar()
    arrows = [b for b in bar.findChildren(QToolButton) if b.isVisible()]
    end = bar.width() if not arrows else min(b.x() for b in arrows)
    return [
        bar.tabText(i)
        for i in range(bar.count())
        if bar.tabRect(i).left() < 0
        or bar.tabRect(i).right() >= end
        or bar.tabRect(i).width() < bar.tabSizeHint(i).width()
    ]


def captions_cut(root: QWidget) -> list[str]:
    """The captions of the exact-text views shown under `root` narrower than their text."""
    return [
        view.caption.text()
        for view in root.findChildren(ExactTextView)
        if view.isVisible()
        and view.caption.width() < view.caption.fontMetrics().horizontalAdvance(view.caption.text())
    ]


def test_the_session_viewer_shows_every_tab_and_whole_captions(
    laptop_window: LaptopWindow, qtbot: QtBot
) -> None:
    window = laptop_window()
    window.show_section("sessions")
    viewer = window.feature(SESSIONS).open_session("sample-ops-assistant")
    assert viewer is not None
    qtbot.waitUntil(viewer.isVisible)
    tabs = viewer.details.tabs
    # Replay and What-if add their tabs when they report: twelve in all.
    tabs.addTab(viewer.replay_view, "Replay")
    tabs.addTab(viewer.whatif_panel, "What-if")
    settle()
    assert tabs.count() == 12
    assert tabs_whole(tabs) == []
    cut: list[str] = []
    for index in range(tabs.count()):
        tabs.setCurrentIndex(index)
        settle()
        cut += captions_cut(tabs.currentWidget())
    assert cut == []


def test_compare_gives_its_aligned_calls_the_room(
    laptop_window: LaptopWindow, qtbot: QtBot
) -> None:
    window = laptop_window()
    window.show_section("sessions")
    sessions = window.feature(SESSIONS)
    sessions.compare_ids("sample-ops-assistant", "sample-ops-assistant-b")
    qtbot.waitUntil(lambda: isinstance(sessions.page.tabs.currentWidget(), CompareView))
    view = sessions.page.tabs.currentWidget()
    assert isinstance(view, CompareView)
    settle()
    assert view.model.rowCount() == 16
    assert rows_in_sight(view.table) >= 10  # six at first
    assert headers_cut(view.table) == []
    assert captions_cut(view) == []


def test_usage_analytics_shows_every_header(laptop_window: LaptopWindow, qtbot: QtBot) -> None:
    window = laptop_window()
    window.show_section("sessions")
    sessions = window.feature(SESSIONS)
    sessions.show_usage()
    table = sessions.page.usage.table
    qtbot.waitUntil(lambda: table.isVisible() and table.model().rowCount() > 0)
    settle()
    assert headers_cut(table) == []


def test_under_the_welcome_strip_the_run_controls_scroll_in_their_pane(
    make_window: WindowFactory, qtbot: QtBot
) -> None:
    """Less room (the first start's welcome strip): the run controls scroll on their own,
    the window keeps its size, every field can be scrolled to."""
    window = make_window()
    window.resize(LAPTOP_WINDOW)
    window.show_section("evals")
    qtbot.waitUntil(lambda: window.pages.built("evals"))
    page = window.feature(EVALS).page
    qtbot.waitUntil(page.run_button.isVisible)
    settle()
    assert window.docks["welcomeDock"].isVisible()
    assert window.size() == LAPTOP_WINDOW
    area = page.controls.area
    for widget in (page.provider_form.test_button, page.run_button):
        area.ensureWidgetVisible(widget)
        settle()
        assert wholly_in_sight(widget), widget
