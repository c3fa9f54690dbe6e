"""What-if retrieval results as a table: one row per recorded discover/recall call."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from axmem_gui.core.session.whatif import WhatIfCall, WhatIfReport
from axmem_gui.ui.inert_text import inert_tooltips
from axmem_gui.ui.table_model import HeaderedTableModel

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Where", "Call", "Recorded", "Now", "Would newly load", "Would no longer load")
DIFFERS_COLOR = QColor(200, 120, 20)


def _ids(ids: tuple[str, ...]) -> str:
    return ", ".join(ids) if ids else "—"


class WhatIfModel(HeaderedTableModel):
    headers = COLUMNS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._calls: tuple[WhatIfCall, ...] = ()

    def set_report(self, report: WhatIfReport | None) -> None:
        self.beginResetModel()
        self._calls = report.calls if report is not None else ()
        self.endResetModel()

    def call(self, row: int) -> WhatIfCall:
        return self._calls[row]

    def row_count(self) -> int:
        return len(self._calls)

    @inert_tooltips
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._row_in_range(index):
            return None
        call = self._calls[index.row()]
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return self._text(call, column, role == Qt.ItemDataRole.ToolTipRole)
        if role == Qt.ItemDataRole.ForegroundRole and not call.same and column in (0, 4, 5):
            return DIFFERS_COLOR
        return None

    def _text(self, call: WhatIfCall, column: int, full: bool) -> str:
        if column == 0:
            mark = "" if call.same else "≠ "
            return f"{mark}forward {call.forward + 1} · {call.stage} · turn {call.turn + 1}"
        if column == 1:
            text = f"{call.kind}({', '.join(repr(s) for s in call.searches)})"
            return text if full or len(text) < 90 else text[:89] + "…"
        if column == 2:
            return _ids(call.recorded)
        if column == 3:
            changed = f"  (content changed: {', '.join(call.content_changed)})"
            return _ids(call.now) + (changed if call.content_changed else "")
        if column == 4:
            return _ids(call.added)
        return _ids(call.removed)
