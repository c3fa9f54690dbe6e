"""The bench and the preview at 1366×768 (the window's first size there: 1350×720): every
header of both result tables whole and in sight without scrolling, and the preview's
total line whole (the BM25 table's headers were cut off at the dock's edge, behind a
horizontal scroll bar, and the total lost its token count to an ellipsis).

The test screen is smaller than a laptop's, so the window is resized to that size after
its docks took their first sizes: the preview dock is narrower here (415 pixels) than on
a 1366×768 screen (470), the bench the same."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QLabel, QTableView
from pytestqt.qtbot import QtBot

from axmem_gui.ui.bench.feature import BENCH
from axmem_gui.ui.main_window import first_start_size
from axmem_gui.ui.preview.install import PREVIEW
from axmem_gui.ui.retrieval.feature import RETRIEVAL
from tests.ui.conftest import WindowFactory

LAPTOP = QSize(1366, 768)


def headers_cut(table: QTableView) -> list[str]:
    """The headers of `table` not shown whole: narrower than their text and margins, or
    (partly) outside the viewport."""
    header = table.horizontalHeader()
    cut = []
    for column in range(header.count()):
        title = str(table.model().headerData(column, Qt.Orientation.Horizontal))
        left = header.sectionViewportPosition(column)
        right = left + header.sectionSize(column)
        if (
            header.sectionSize(column) < header.sectionSizeHint(column)
            or left < 0
            or right > header.viewport().width()
        ):
            cut.append(title)
    return cut


def shows_whole(label: QLabel) -> bool:
    rect = label.contentsRect()
    flags = int(label.alignment()) | (int(Qt.TextFlag.TextWordWrap) if label.wordWrap() else 0)
    bounds = QRect(0, 0, rect.width(), 10_000)
    needed = label.fontMetrics().boundingRect(bounds, flags, label.text())
    return needed.width() <= rect.width() and needed.height() <= rect.height()


def test_bench_headers_and_preview_total_at_1366_by_768(
    make_window: WindowFactory, qtbot: QtBot
) -> None:
    window = make_window()
    window.resize(first_start_size(LAPTOP))
    state = window.feature(RETRIEVAL).state
    qtbot.waitUntil(lambda: state.ready, timeout=10_000)
    bench = window.feature(BENCH).panel
    window.shell.show_dock("benchDock")
    bench.set_searches(["how do I ship a release", "rollback"])
    bench.run()
    qtbot.waitUntil(
        lambda: not bench.bm25_pending and bench.bm25_model.rowCount() > 0, timeout=10_000
    )
    qtbot.waitUntil(lambda: window.size() == first_start_size(LAPTOP))
    assert bench.ax_model.rowCount() > 0
    for table in (bench.ax_table, bench.bm25_table):
        qtbot.waitUntil(table.isVisible)
        assert headers_cut(table) == [], table.objectName()
        assert table.horizontalScrollBar().maximum() == 0, table.objectName()
    total = window.feature(PREVIEW).panel.total_label
    assert total.isVisible() and total.text().startswith("Total")
    assert shows_whole(total), total.text()
    # A big catalog's total too.
    total.setText("Total\u00a01,523,456\u00a0chars · ~380,864\u00a0tokens")
    qtbot.waitUntil(lambda: shows_whole(total))
