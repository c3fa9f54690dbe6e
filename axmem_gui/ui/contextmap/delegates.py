"""Painting the map tree: diff backgrounds, "was:" lines for replaced items, score badges
and next-to-evict marks. Data comes from the model's roles; colours from the palette."""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QBrush, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QApplication,
    QDoubleSpinBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from axmem_gui.core.contextmap.diff import format_score
from axmem_gui.ui.contextmap import colors
from axmem_gui.ui.contextmap.map_model import COL_ID, COL_SCORE, COL_TEXT, MapRole
from axmem_gui.ui.contextmap.rows import Change, ItemRow, SectionRow

_Index = QModelIndex | QPersistentModelIndex
_PAD = 6
_BADGE_H_PAD = 7


class MapItemDelegate(QStyledItemDelegate):
    def _row(self, index: _Index) -> ItemRow | SectionRow | None:
        row = index.data(MapRole.Row)
        return row if isinstance(row, ItemRow | SectionRow) else None

    def initStyleOption(self, option: QStyleOptionViewItem, index: _Index) -> None:
        super().initStyleOption(option, index)
        row = self._row(index)
        palette = option.palette
        if isinstance(row, SectionRow):
            option.backgroundBrush = QBrush(
                colors.mix(colors.base(palette), palette.color(QPalette.ColorRole.Text), 0.06)
            )
            if not row.present:
                palette.setColor(QPalette.ColorRole.Text, colors.muted(palette))
            return
        if not isinstance(row, ItemRow):
            return
        change = colors.main_change(row.changes)
        if change is Change.RESCORED and index.column() != COL_SCORE:
            change = None
        if change is not None:
            option.backgroundBrush = QBrush(colors.change_background(palette, change))
        if row.removed:
            palette.setColor(QPalette.ColorRole.Text, colors.muted(palette))

    # painting ---------------------------------------------------------------------------
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        row = self._row(index)
        if not isinstance(row, ItemRow):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        if index.column() == COL_SCORE:
            self._paint_blank(painter, opt)
            self._paint_badge(painter, opt, row)
        elif index.column() == COL_TEXT and row.before_content is not None:
            self._paint_blank(painter, opt)
            self._paint_replaced(painter, opt, row)
        else:
            super().paint(painter, option, index)
        if index.column() == COL_ID:
            self._paint_marks(painter, opt, row)

    def _paint_blank(self, painter: QPainter, opt: QStyleOptionViewItem) -> None:
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)

    def _text_color(self, opt: QStyleOptionViewItem) -> QPalette.ColorRole:
        selected = opt.state & QStyle.StateFlag.State_Selected
        return QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text

    def _paint_replaced(self, painter: QPainter, opt: QStyleOptionViewItem, row: ItemRow) -> None:
        rect: QRect = opt.rect.adjusted(_PAD - 2, 2, -_PAD, -2)
        metrics = QFontMetrics(opt.font)
        line = metrics.height()
        palette: QPalette = opt.palette
        painter.save()
        painter.setPen(palette.color(self._text_color(opt)))
        top = QRect(rect.left(), rect.top(), rect.width(), line)
        painter.drawText(top, Qt.AlignmentFlag.AlignVCenter, _elide(metrics, row.content, top))
        was_font = QFont(opt.font)
        was_font.setStrikeOut(True)
        painter.setFont(was_font)
        text_color = palette.color(self._text_color(opt))
        painter.setPen(colors.mix(text_color, colors.base(palette), 0.35))
        bottom = QRect(rect.left(), rect.top() + line, rect.width(), line)
        text = f"was: {row.before_content}"
        painter.drawText(bottom, Qt.AlignmentFlag.AlignVCenter, _elide(metrics, text, bottom))
        painter.restore()

    def _paint_badge(self, painter: QPainter, opt: QStyleOptionViewItem, row: ItemRow) -> None:
        palette: QPalette = opt.palette
        text = badge_text(row)
        metrics = QFontMetrics(opt.font)
        width = metrics.horizontalAdvance(text) + 2 * _BADGE_H_PAD
        height = metrics.height() + 2
        rect: QRect = opt.rect
        badge = QRect(0, 0, min(width, rect.width() - 4), height)
        badge.moveCenter(rect.center())
        background, foreground = colors.score_badge(palette, row.score)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(background)
        painter.drawRoundedRect(badge, height / 2, height / 2)
        painter.setPen(foreground)
        painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

    def _paint_marks(self, painter: QPainter, opt: QStyleOptionViewItem, row: ItemRow) -> None:
        palette: QPalette = opt.palette
        rect: QRect = opt.rect
        painter.save()
        change = colors.main_change(row.changes)
        if change is not None:
            painter.fillRect(
                QRect(rect.left(), rect.top(), 3, rect.height()),
                colors.change_accent(palette, change),
            )
        if row.evict_next:
            label = "evicts" if row.pending_evict else "next out"
            font = QFont(opt.font)
            font.setPointSizeF(max(6.5, font.pointSizeF() * 0.8))
            metrics = QFontMetrics(font)
            width = metrics.horizontalAdvance(label) + 8
            height = metrics.height() + 1
            tag = QRect(rect.right() - width - 3, 0, width, height)
            tag.moveTop(rect.center().y() - height // 2)
            color = colors.evict_mark(palette, row.pending_evict)
            if opt.state & QStyle.StateFlag.State_Selected:
                color = palette.color(QPalette.ColorRole.HighlightedText)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QPen(color, 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(tag, 3, 3)
            painter.setFont(font)
            painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, label)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        size = super().sizeHint(option, index)
        row = self._row(index)
        if isinstance(row, ItemRow) and row.before_content is not None:
            line = QFontMetrics(option.font).height()
            size.setHeight(max(size.height(), 2 * line + 6))
        return size

    # editing ----------------------------------------------------------------------------
    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        if index.column() == COL_SCORE:
            spin = QDoubleSpinBox(parent)
            spin.setRange(-1_000_000, 1_000_000)
            spin.setDecimals(2)
            spin.setFrame(False)
            return spin
        return super().createEditor(parent, option, index)

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        if isinstance(editor, QDoubleSpinBox):
            editor.setValue(float(index.data(Qt.ItemDataRole.EditRole) or 0))
            return
        super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:
        if isinstance(editor, QDoubleSpinBox):
            model.setData(index, editor.value(), Qt.ItemDataRole.EditRole)
            return
        super().setModelData(editor, model, index)


def badge_text(row: ItemRow) -> str:
    now = _signed(row.score)
    if Change.RESCORED in row.changes and not row.removed:
        return f"{_signed(row.before_score)} → {now}"
    return now


def _signed(score: float | None) -> str:
    if score is None:
        return "–"
    text = format_score(score)
    return f"+{text}" if score > 0 else text


def _elide(metrics: QFontMetrics, text: str, rect: QRect) -> str:
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
