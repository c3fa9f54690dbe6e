"""A workspace whose every user string is HTML that Qt would act on if it read it as rich
text, and the check that no label or tooltip of the GUI lets it.

The tag is harmless if Qt does read it (the image does not exist), so a test of old code
fails on an assertion, not by aborting the test run as `/dev/zero` would."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from PySide6 import QtGui
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QLabel, QTabBar, QWidget

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.services.workspace import init_workspace
from tests.helpers.store import raw

MARK = "axmem-hostile"
TAG = f'<img src="file:///nonexistent/{MARK}.png">'
#: Long, so every label that elides it elides it (and then carries it in its tooltip).
HOSTILE = f"{TAG}<b>{MARK}</b> " + "a long hostile name " * 12
HOSTILE_ID = f"{TAG}id"


def hostile(n: int | str = "") -> str:
    return f"{HOSTILE}{n}"


def _sample(name: str) -> Any:
    return json.loads((resources.files("axmem_gui") / "sample" / name).read_text("utf-8"))


def hostile_workspace(path: Path) -> Path:
    """The sample workspace plus one hostile thing of every kind, each named, described
    and filled with `HOSTILE`."""
    opened = init_workspace(path, sample=True)
    try:
        ws = raw(opened)
        content = f"# {hostile(3)}\n\n{TAG}"
        ws.skills.upsert(Skill("hostile-skill", hostile(1), hostile(2), content, (hostile(4),)))
        ws.skills.upsert(Skill(HOSTILE_ID, hostile(5), hostile(6), hostile(7)))
        ws.memories.upsert(Memory("hostile-memory", hostile(8), (hostile(9),)))
        ws.memories.upsert(Memory(HOSTILE_ID, hostile(10)))

        scenario = copy.deepcopy(_sample("scenarios.json")[0])
        scenario.update(name=hostile("scenario"), task=hostile("task"))
        scenario["turns"][0]["discover"] = [hostile("discover")]
        ws.scenarios.save(scenario["name"], scenario)

        suite = copy.deepcopy(_sample("suites.json")[0])
        suite.update(name=hostile("suite"), description=hostile("suite description"))
        for n, case in enumerate(suite["cases"][:4]):
            case.update(name=hostile(f"case {n}"), note=hostile(f"note {n}"))
            case["searches"] = [hostile(f"search {n}")]
            case["mustInclude"] = [HOSTILE_ID]
        suite["cases"] = suite["cases"][:4]
        ws.suites.save(suite["name"], suite)

        agent = copy.deepcopy(_sample("agents.json")[0])
        agent.update(name=hostile("agent"), instruction=hostile("instruction"))
        ws.agents.save(agent["name"], agent)

        eval_set = copy.deepcopy(_sample("evals.json")[0])
        eval_set.update(name=hostile("eval set"), description=hostile("eval description"))
        for n, case in enumerate(eval_set["cases"]):
            case["name"] = hostile(f"eval case {n}")
            case["inputs"] = {"request": hostile(f"request {n}")}
        ws.evals.save(eval_set["name"], eval_set)

        sample_session = next(
            n
            for n in sorted(p.name for p in (resources.files("axmem_gui") / "sample").iterdir())
            if n.endswith(".axsession.json")
        )
        session = copy.deepcopy(_sample(sample_session))
        session.update(id="hostile-session", name=hostile("session"))
        ws.sessions.save(session)
        for snapshot in ws.contextmaps.list()[:1]:
            ws.contextmaps.add(hostile("map agent"), snapshot.state, label=hostile("map label"))
    finally:
        opened.close()
    return path


def rich(text: object) -> bool:
    """True when Qt would read `text` as rich text with the hostile tag live in it."""
    return isinstance(text, str) and TAG in text and bool(QtGui.Qt.mightBeRichText(text))


def columns(model: QAbstractItemModel, parent: QModelIndex | None = None) -> int:
    """The model's column count (some of Qt's own models hide the one-argument form)."""
    try:
        return int(model.columnCount(parent or QModelIndex()))
    except TypeError:
        return 1


def _has_children(model: QAbstractItemModel, index: QModelIndex) -> bool:
    try:
        return bool(model.hasChildren(index))
    except TypeError:  # a list or table model (Qt makes the method private there)
        return False


def _indexes(model: QAbstractItemModel, parent: QModelIndex, depth: int) -> Iterator[QModelIndex]:
    rows = min(model.rowCount(parent), 200)
    for row in range(rows):
        for column in range(min(columns(model, parent), 30)):
            index = model.index(row, column, parent)
            yield index
            if column == 0 and depth < 4 and _has_children(model, index):
                yield from _indexes(model, index, depth + 1)


def live_html(widgets: list[QWidget]) -> list[str]:
    """Where the hostile tag would be read as rich text: every widget's tooltip, every
    label's text, every action's tooltip, every tab's tooltip, and every tooltip an item
    view's model answers (cells and headers). Empty when the GUI is safe."""
    found: list[str] = []

    def where(widget: QWidget) -> str:
        return f"{type(widget).__name__}#{widget.objectName()}"

    for widget in widgets:
        if rich(widget.toolTip()):
            found.append(f"{where(widget)}: tooltip")
        for action in widget.actions():
            if rich(action.toolTip()):
                found.append(f"{where(widget)}: action {action.text()!r} tooltip")
        if isinstance(widget, QLabel):
            text = widget.text()
            if widget.textFormat() == Qt.TextFormat.RichText and TAG in text:
                found.append(f"{where(widget)}: rich-text label")
            elif widget.textFormat() == Qt.TextFormat.AutoText and rich(text):
                found.append(f"{where(widget)}: label read as rich text")
        if isinstance(widget, QTabBar):
            for tab in range(widget.count()):
                if rich(widget.tabToolTip(tab)):
                    found.append(f"{where(widget)}: tab {tab} tooltip")
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            for index in _indexes(model, QModelIndex(), 0):
                if rich(index.data(Qt.ItemDataRole.ToolTipRole)):
                    found.append(f"{where(widget)} ({type(model).__name__}): cell tooltip")
                    break
            for orientation in (Qt.Orientation.Horizontal, Qt.Orientation.Vertical):
                count = columns(model) if orientation == Qt.Orientation.Horizontal else 0
                for section in range(count):
                    tip = model.headerData(section, orientation, Qt.ItemDataRole.ToolTipRole)
                    if rich(tip):
                        found.append(f"{where(widget)}: header tooltip")
    return sorted(set(found))
