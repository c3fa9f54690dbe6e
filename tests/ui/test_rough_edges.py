"""Issue #30's smaller rough edges, each as a user met it: the bench stayed on "discover"
on the Memories page; the Suites page showed two "Run (Ctrl+Enter)" buttons; the OpenAI
model list began with embedding, audio and realtime models; Help > Documentation showed
no images; the Memories table's "Content" header was off to the right; the preview's
turn picker cut "Turn 2 · end" to "Turn 2 · e"; the editor's counts line was cut.
(The tables' horizontal scroll bars at 1366×768: tests/ui/test_laptop_room.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSize, Qt, QUrl
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import (
    QApplication,
    QPushButton,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionHeader,
)

from axmem_gui.services.workspace import OpenWorkspace
from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.help import DocumentationDialog
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.pages import CatalogPage
from axmem_gui.ui.preview.install import PREVIEW
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from axmem_gui.ui.sessions.provider_form import ProviderForm

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")


def test_the_bench_searches_what_the_page_lists(window: MainWindow) -> None:
    bench = window.feature(BENCH).panel
    window.show_section("memories")
    assert bench.kind() == "recall"
    window.show_section("skills")
    assert bench.kind() == "discover"
    window.show_section("memories")
    window.show_section("suites")  # a page that lists neither leaves the bench as it is
    assert bench.kind() == "recall"


def test_the_suites_page_has_one_button_of_each_name(window: MainWindow) -> None:
    window.show_section("suites")
    QApplication.processEvents()
    texts = [
        b.text() for b in window.findChildren(QPushButton) if b.isVisible() and b.text().strip()
    ]
    assert len(texts) == len(set(texts)), sorted(texts)
    runs = [t for t in texts if "Run" in t]
    assert len(runs) == 2 and any("suites" in t for t in runs) and any("bench" in t for t in runs)


def test_the_openai_model_list_starts_with_chat_models(qtbot: Any, window: MainWindow) -> None:
    form = ProviderForm(window.task_runner)
    qtbot.addWidget(form)
    form.provider.setCurrentIndex(form.provider.findData("openai"))
    names = [form.model.itemText(i) for i in range(form.model.count())]
    assert names and names[0] == "gpt-5-mini"  # axllm's default chat model for OpenAI
    assert not [n for n in names if "embedding" in n or "audio" in n or "realtime" in n]
    assert len(names) == len(set(names))


def test_documentation_shows_the_readmes_pictures(qtbot: Any, tmp_path: Path) -> None:
    shots = tmp_path / "docs" / "screenshots"
    shots.mkdir(parents=True)
    picture = QImage(1500, 900, QImage.Format.Format_RGB32)
    picture.fill(QColor(200, 40, 40))
    assert picture.save(str(shots / "main.png"))
    readme = (
        "# Title\n\n![The main window](docs/screenshots/main.png)\n\n"
        "![gone](docs/screenshots/missing.png) ![far](../outside.png) text\n"
    )
    dialog = DocumentationDialog(readme, None, tmp_path)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    document = dialog.browser.document()
    shown = document.resource(document.ResourceType.ImageResource, QUrl("axmem-doc:0"))
    assert isinstance(shown, QImage) and not shown.isNull()
    assert shown.width() <= dialog.browser.viewport().width()  # scaled to the text
    html = document.toHtml()
    assert 'src="axmem-doc:0"' in html and "main.png" not in html  # Qt reads no path
    # what is not there (or outside the README's folder) is named, never read
    text = dialog.browser.toPlainText()
    assert "[gone]" in text and "[far]" in text and "outside.png" not in html


def test_the_memories_content_header_is_in_view(qtbot: Any, window: MainWindow) -> None:
    ws: OpenWorkspace = window.controller.workspace
    page = CatalogPage("memories", ws.catalog)
    qtbot.addWidget(page)
    page.resize(900, 500)
    page.split.setSizes([250, 650])  # the list as wide as on a 1366×768 laptop
    page.show()
    qtbot.waitExposed(page)
    header = page.table.horizontalHeader()
    content = 1
    assert header.model().headerData(content, Qt.Orientation.Horizontal) == "Content"
    left = header.sectionViewportPosition(content)
    # where the header's title is drawn: aligned as the header says, in its whole section
    option = QStyleOptionHeader()
    option.initFrom(header)
    option.rect = QRect(left, 0, header.sectionSize(content), header.height())
    option.textAlignment = header.defaultAlignment()
    option.text = "Content"
    label = header.style().subElementRect(QStyle.SubElement.SE_HeaderLabel, option, header)
    drawn = QStyle.alignedRect(
        header.layoutDirection(),
        header.defaultAlignment(),
        QSize(header.fontMetrics().horizontalAdvance("Content"), label.height()),
        label,
    )
    assert drawn.left() >= 0 and drawn.right() <= page.table.viewport().width(), drawn


def test_the_last_turn_of_a_scenario_is_shown_whole(qtbot: Any, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: window.feature(RETRIEVAL).state.ready, timeout=10_000)
    panel = window.feature(PREVIEW).panel
    panel.show_scenario("Ship 2.4.0", 0)
    panel.recompute_now()
    combo = panel.turn_combo
    last = combo.count() - 1
    panel.show_scenario("Ship 2.4.0", last)
    panel.recompute_now()
    assert last > 0 and combo.currentText() == f"Turn {last + 1} · end"
    QApplication.processEvents()
    # as wide as the style needs for its longest text (margins and arrow included)
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    text = QSize(combo.fontMetrics().horizontalAdvance(combo.currentText()), 16)
    needed = combo.style().sizeFromContents(
        QStyle.ContentsType.CT_ComboBox, option, text, combo
    )
    qtbot.waitUntil(lambda: combo.width() >= needed.width())


def test_the_editors_counts_line_is_shown_whole(qtbot: Any, window: MainWindow) -> None:
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("release-checklist")  # 1,026 units: past the search cut
    page.split.setSizes([250, 430])
    counts = page.form.content.counts
    qtbot.waitUntil(lambda: counts.isVisible() and counts.width() > 0)
    QApplication.processEvents()
    text = counts.text()
    assert "beyond the 600-unit search cut" in text
    room = QRect(0, 0, counts.contentsRect().width(), 10_000)
    flags = int(Qt.TextFlag.TextWordWrap)
    needed = counts.fontMetrics().boundingRect(room, flags, text)
    assert needed.height() <= counts.contentsRect().height(), (needed, counts.size())


@pytest.mark.parametrize("kind", ["skills", "memories"])
def test_catalog_columns_fit_a_list_wide_enough_for_their_headers(
    qtbot: Any, window: MainWindow, kind: str
) -> None:
    ws: OpenWorkspace = window.controller.workspace
    page = CatalogPage(kind, ws.catalog)
    qtbot.addWidget(page)
    page.resize(1200, 500)
    page.split.setSizes([600, 600])  # the list as wide as in focus mode on a laptop
    page.show()
    qtbot.waitExposed(page)
    table = page.table
    qtbot.waitUntil(lambda: table.horizontalHeader().length() <= table.viewport().width())
    assert not table.horizontalScrollBar().isVisible()
    # too narrow for the headers: nothing is squeezed illegible, the view scrolls
    widths = [table.columnWidth(c) for c in range(2)]
    page.split.setSizes([220, 980])
    qtbot.waitUntil(lambda: table.viewport().width() < 230)
    assert [table.columnWidth(c) for c in range(2)] == widths
