"""The session timeline as a tree model: forward > stage > turn > model call.

A thin adapter over `core.session.timeline.session_timeline`: the tree is built once per
session (sessions are immutable once recorded) and every index points at a `TimelineItem`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.timeline import (
    CallNode,
    ForwardNode,
    StageNode,
    TurnNode,
    is_trouble,
    outcome_phrase,
    session_timeline,
)
from axmem_gui.ui.inert_text import inert_tooltips

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Step", "Tokens", "ms")
STEP, TOKENS, MS = range(len(COLUMNS))
ERROR_COLOR = QColor(220, 50, 47)
PREVIEW_CHARS = 60


class NodeKind(IntEnum):
    Forward = 0
    Stage = 1
    Turn = 2
    Call = 3


class TimelineRole(IntEnum):
    Kind = Qt.ItemDataRole.UserRole + 1
    CallIndex = Qt.ItemDataRole.UserRole + 2  # the exchange index (calls only)
    Forward = Qt.ItemDataRole.UserRole + 3
    Item = Qt.ItemDataRole.UserRole + 4  # the TimelineItem


@dataclass(eq=False)
class TimelineItem:
    kind: NodeKind
    forward: ForwardNode
    stage: StageNode | None = None
    turn: TurnNode | None = None
    call: CallNode | None = None
    parent: TimelineItem | None = None
    row: int = 0
    children: list[TimelineItem] = field(default_factory=list)

    def add(self, child: TimelineItem) -> TimelineItem:
        child.parent, child.row = self, len(self.children)
        self.children.append(child)
        return child

    def calls(self) -> Iterator[CallNode]:
        if self.call is not None:
            yield self.call
        for child in self.children:
            yield from child.calls()

    def first_call(self) -> CallNode | None:
        return next(self.calls(), None)

    @property
    def has_error(self) -> bool:
        if self.kind == NodeKind.Forward:
            return self.forward.status not in ("complete", "not_run")
        turn = self.turn if self.kind == NodeKind.Turn else None
        if turn is not None and (turn.is_error or is_trouble(turn.outcome)):
            return True
        return any(c.error is not None for c in self.calls())

    def label(self) -> str:
        if self.kind == NodeKind.Forward:
            fw = self.forward
            return f"Forward {fw.index + 1} · {fw.status}{_inputs_preview(fw.forward.inputs)}"
        if self.kind == NodeKind.Stage:
            assert self.stage is not None
            count = len(self.stage.turns)
            return f"{self.stage.stage}  ({count} turn{'s' if count != 1 else ''})"
        if self.kind == NodeKind.Turn:
            assert self.turn is not None
            extra = _turn_kinds(self.turn)
            turn = self.turn
            if is_trouble(turn.outcome):
                error = f" · {outcome_phrase(turn.outcome, turn.retry)}"
            else:
                error = " · runtime error" if turn.is_error else ""
            return f"turn {turn.turn + 1}{extra}{error}"
        assert self.call is not None
        sub = f" · {self.call.stage}" if self.turn and self.call.stage != self.turn.stage else ""
        error = " · failed" if self.call.error is not None else ""
        return f"call #{self.call.index}{sub}{error}"


def _inputs_preview(inputs: Mapping[str, Any]) -> str:
    if not inputs:
        return ""
    key, value = next(iter(inputs.items()))
    text = value if isinstance(value, str) else json_dumps(value)
    text = " ".join(text.split())
    if len(text) > PREVIEW_CHARS:
        text = text[: PREVIEW_CHARS - 1] + "…"
    return f" — {key}: {text}"


def _turn_kinds(turn: TurnNode) -> str:
    kinds = [s.kind for s in turn.searches]
    return f" · {', '.join(dict.fromkeys(kinds))}" if kinds else ""


def build_items(session: Session) -> list[TimelineItem]:
    roots: list[TimelineItem] = []
    for row, fw in enumerate(session_timeline(session)):
        root = TimelineItem(NodeKind.Forward, fw, row=row)
        roots.append(root)
        for stage in fw.stages:
            stage_item = root.add(TimelineItem(NodeKind.Stage, fw, stage))
            for turn in stage.turns:
                turn_item = stage_item.add(TimelineItem(NodeKind.Turn, fw, stage, turn))
                for call in turn.calls:
                    turn_item.add(TimelineItem(NodeKind.Call, fw, stage, turn, call))
    return roots


class TimelineModel(QAbstractItemModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._roots: list[TimelineItem] = []

    def set_session(self, session: Session | None) -> None:
        self.beginResetModel()
        self._roots = build_items(session) if session is not None else []
        self.endResetModel()

    def roots(self) -> list[TimelineItem]:
        return list(self._roots)

    def item(self, index: Index) -> TimelineItem | None:
        if not index.isValid():
            return None
        value = index.internalPointer()
        return value if isinstance(value, TimelineItem) else None

    def index_of_call(self, call_index: int) -> QModelIndex:
        for root in self._roots:
            for item in _walk(root):
                if item.call is not None and item.call.index == call_index:
                    return self.createIndex(item.row, 0, item)
        return QModelIndex()

    # Qt model -----------------------------------------------------------------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        owner = self.item(parent)
        siblings = self._roots if owner is None else owner.children
        return self.createIndex(row, column, siblings[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        item = self.item(index)
        if item is None or item.parent is None:
            return QModelIndex()
        return self.createIndex(item.parent.row, 0, item.parent)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        owner = self.item(parent)
        return len(self._roots) if owner is None else len(owner.children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    @inert_tooltips
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        item = self.item(index)
        if item is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(item, column)
        if role == TimelineRole.Kind:
            return int(item.kind)
        if role == TimelineRole.CallIndex:
            return item.call.index if item.call is not None else None
        if role == TimelineRole.Forward:
            return item.forward.index
        if role == TimelineRole.Item:
            return item
        if role == Qt.ItemDataRole.ForegroundRole and column == STEP and item.has_error:
            return ERROR_COLOR
        if role == Qt.ItemDataRole.TextAlignmentRole and column != STEP:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        turn = item.turn
        if (
            role == Qt.ItemDataRole.ToolTipRole
            and item.kind == NodeKind.Turn
            and turn is not None
            and is_trouble(turn.outcome)
        ):
            return f"{outcome_phrase(turn.outcome, turn.retry)}: {turn.message or ''}"
        if role == Qt.ItemDataRole.ToolTipRole and item.call is not None:
            call = item.call
            tip = (
                f"{call.stage} · prompt {call.prompt_tokens:,} + completion "
                f"{call.completion_tokens:,} tokens · {call.duration_ms:,.1f} ms\n{call.digest}"
            )
            return tip + (f"\nerror: {call.error or 'failed'}" if call.error is not None else "")
        return None

    def _display(self, item: TimelineItem, column: int) -> str:
        if column == STEP:
            return item.label()
        calls = list(item.calls())
        if column == TOKENS:
            total = sum(c.prompt_tokens + c.completion_tokens for c in calls)
            return f"{total:,}" if calls else ""
        total_ms = sum(c.duration_ms for c in calls)
        return f"{total_ms:,.0f}" if calls else ""


def _walk(item: TimelineItem) -> Iterator[TimelineItem]:
    yield item
    for child in item.children:
        yield from _walk(child)
