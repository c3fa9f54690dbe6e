"""`FittedColumns`: a small table's columns sized to headers and cells, fitted to the
view's width by the flexible columns giving up room in turn."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from axmem_gui.services.bench import Bm25Row
from axmem_gui.ui.bench.models import SCORE_BAR_WIDTH, Bm25ResultModel
from axmem_gui.ui.bench.panel import ID_CHARS, _table
from axmem_gui.ui.fitted_columns import FLEX_CAP, FittedColumns
from tests.ui.retrieval.test_bench_layout import headers_cut


def test_narrow_columns_give_up_room_in_turn_down_to_their_headers(qtbot: QtBot) -> None:
    """The search string gives up room first, then the id, each down to its header's
    width; below that the headers stay whole and the view scrolls."""
    model = Bm25ResultModel()
    table = _table(model)
    qtbot.addWidget(table)
    long_id, long_search = "a-rather-long-entry-id-of-a-memory", "how do I ship a release " * 3
    model.set_rows((Bm25Row(long_id, 1, long_search, 2.0, True),), {})
    fitted = table.findChild(FittedColumns)
    assert isinstance(fitted, FittedColumns)
    header = table.horizontalHeader()
    floors = [
        max(header.sectionSizeHint(c), table.fontMetrics().horizontalAdvance("x" * ID_CHARS)
            if c == 1 else 0, SCORE_BAR_WIDTH if c == 2 else 0)
        for c in range(header.count())
    ]
    wants = fitted.widths(10_000)
    assert wants[1] > floors[1] and wants[5] > floors[5]  # long cells: room to give up
    assert wants[5] == FLEX_CAP  # (a long search string is not shown whole)
    full = sum(wants)
    assert fitted.widths(full) == wants
    assert fitted.widths(full - 10) == [*wants[:5], wants[5] - 10]
    search_room = wants[5] - floors[5]
    assert fitted.widths(full - search_room - 7) == [
        wants[0], wants[1] - 7, *wants[2:5], floors[5]
    ]
    assert fitted.widths(sum(floors) - 50) == [wants[0], floors[1], *wants[2:5], floors[5]]
    table.resize(sum(floors) + 40, 120)
    table.show()
    qtbot.waitExposed(table)
    qtbot.waitUntil(lambda: header.sectionSize(5) == floors[5])
    assert headers_cut(table) == [] and table.horizontalScrollBar().maximum() == 0
