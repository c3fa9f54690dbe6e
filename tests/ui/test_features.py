"""The feature contract: install order from declared needs, layout of what features
contribute, and one shutdown path driven by the workspace controller's closing signal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from axmem_gui.ui.actions import make_action
from axmem_gui.ui.feature import (
    Contributions,
    DockSpec,
    FeatureContext,
    FeatureError,
    FeatureSpec,
    MenuPlace,
    PageSpec,
    install_order,
)
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.wiring import FEATURES
from tests.ui.conftest import WindowFactory

#: Every toy feature appends (its name, event) here.
EVENTS: list[tuple[str, str]] = []


class Toy:
    """A feature with one of everything, named after its spec."""

    name = "toy"

    def __init__(self, context: FeatureContext) -> None:
        self.context = context
        EVENTS.append((self.name, "install"))
        self.page = QLabel(f"{self.name} page")
        self.status = QLabel(f"{self.name} status")
        self.status.setObjectName(f"{self.name}Status")
        self.dock = QLabel(f"{self.name} dock")
        self.dropped: list[Path] = []
        self.action = make_action(context.shell, f"Do {self.name}", self.act)
        context.actions.add(f"{self.name}.do", self.action, MenuPlace("run", self.name))

    def act(self) -> None:
        self.context.shell.show_section(self.name)
        self.context.shell.set_badge(self.name, "new")

    def contributions(self) -> Contributions:
        return Contributions(
            pages=[PageSpec(self.name, self.name.title(), self.page)],
            docks=[
                DockSpec(
                    f"{self.name}Dock",
                    f"{self.name} dock",
                    self.dock,
                    Qt.DockWidgetArea.BottomDockWidgetArea,
                    toggle_shortcut="Ctrl+Shift+Y",
                )
            ],
            status_widgets=[self.status],
            drop_target=self,
        )

    def accepts_drop(self, paths: Any) -> bool:
        return all(str(p).endswith(".toy") for p in paths)

    def drop(self, paths: Any) -> None:
        self.dropped.extend(paths)

    def shutdown(self) -> None:
        EVENTS.append((self.name, "shutdown"))


def toy(name: str, *needs: FeatureSpec[Any]) -> FeatureSpec[Toy]:
    def create(context: FeatureContext) -> Toy:
        feature = Toy.__new__(Toy)
        feature.name = name
        Toy.__init__(feature, context)
        return feature

    return FeatureSpec(name, create, needs=tuple(needs))


@pytest.fixture
def bare_window(make_window: WindowFactory) -> MainWindow:
    EVENTS.clear()
    return make_window(features=(), show=False)


# install order ---------------------------------------------------------------------
def test_install_order_puts_needs_first_and_keeps_the_given_order_otherwise() -> None:
    a = toy("a")
    b = toy("b", a)
    c = toy("c")
    d = toy("d", c, b)
    assert [s.name for s in install_order([d, a, c, b])] == ["c", "a", "b", "d"]
    assert [s.name for s in install_order([a, b, c, d])] == ["a", "b", "c", "d"]


def test_a_need_that_is_not_registered_is_an_error_naming_both() -> None:
    a = toy("a")
    b = toy("b", a)
    with pytest.raises(FeatureError, match="feature 'b' needs 'a', which is not registered"):
        install_order([b])


def test_a_cycle_of_needs_is_an_error_naming_the_cycle() -> None:
    needs: list[FeatureSpec[Any]] = []
    a = FeatureSpec("a", Toy, needs=())
    b = FeatureSpec("b", Toy, needs=(a,))
    c = FeatureSpec("c", Toy, needs=(b,))
    # Specs are frozen: build the cycle a -> c -> b -> a through a fresh `a`.
    object.__setattr__(a, "needs", (c,))
    needs.extend([a, b, c])
    with pytest.raises(FeatureError, match="features need each other: a -> c -> b -> a"):
        install_order(needs)


def test_two_features_of_one_name_are_an_error() -> None:
    with pytest.raises(FeatureError, match="feature 'a': registered twice"):
        install_order([toy("a"), toy("a")])


def test_a_feature_reaches_only_what_it_declared(bare_window: MainWindow) -> None:
    a = toy("a")
    reached: list[object] = []

    def sneaky(context: FeatureContext) -> Toy:
        with pytest.raises(FeatureError, match="feature 'a': used but not declared"):
            context.need(a)
        return toy("b").create(context)

    def honest(context: FeatureContext) -> Toy:
        reached.append(context.need(a))
        return toy("c").create(context)

    bare_window.install([a, FeatureSpec("b", sneaky), FeatureSpec("c", honest, needs=(a,))])
    assert reached == [bare_window.feature(a)]


def test_the_app_registers_every_feature_once_and_in_a_valid_order() -> None:
    order = install_order(FEATURES)
    assert len(order) == len(FEATURES)
    for position, spec in enumerate(order):
        assert all(order.index(need) < position for need in spec.needs)


# layout ----------------------------------------------------------------------------
def test_the_window_lays_out_what_a_feature_contributes(
    bare_window: MainWindow, qtbot: QtBot
) -> None:
    one, two = toy("one"), toy("two")
    bare_window.install([one, two])
    bare_window.show()
    qtbot.waitExposed(bare_window)
    # Pages: navigator rows and View > section entries with Ctrl+N, in registration order.
    assert list(bare_window.pages) == ["one", "two"]
    assert bare_window.nav_model.rowCount() == 2
    view = [(a.text(), a.shortcut().toString()) for a in bare_window.view_menu.actions()]
    assert view == [
        ("one dock", "Ctrl+Shift+Y"),
        ("two dock", "Ctrl+Shift+Y"),
        ("&Focus on the Editor", "F11"),  # the page's docks out of the way
        ("", ""),
        ("One", "Ctrl+1"),
        ("Two", "Ctrl+2"),
    ]
    # Actions: each group in its menu, groups apart.
    run = [a.text() or "--" for a in bare_window.run_menu.actions()]
    assert run == ["Do one", "--", "Do two"]
    # Status widgets and docks.
    assert bare_window.statusBar().findChild(QLabel, "twoStatus") is bare_window.feature(two).status
    assert bare_window.docks["oneDock"].widget() is bare_window.feature(one).dock
    # The shell a feature gets moves the window.
    bare_window.action_registry.get("two.do").trigger()
    assert bare_window.current_section() == "two"
    assert bare_window.nav_model.index(1).data().endswith("new")
    with pytest.raises(FeatureError, match="already installed"):
        bare_window.install([toy("three")])


def test_files_dropped_on_the_window_go_to_the_feature_that_takes_them(
    bare_window: MainWindow, qtbot: QtBot
) -> None:
    spec = toy("one")
    bare_window.install([spec])
    bare_window.show()
    qtbot.waitExposed(bare_window)
    for name, taken in (("a.toy", True), ("b.txt", False)):
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(f"/nowhere/{name}")])
        args = (
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        enter = QDragEnterEvent(QPoint(5, 5), *args)
        enter.ignore()
        QApplication.sendEvent(bare_window, enter)
        assert enter.isAccepted() is taken
        if taken:
            drop = QDropEvent(QPointF(5, 5), *args)
            QApplication.sendEvent(bare_window, drop)
            assert drop.isAccepted()
    assert bare_window.feature(spec).dropped == [Path("/nowhere/a.toy")]


# shutdown --------------------------------------------------------------------------
def test_closing_the_workspace_stops_each_feature_once_last_installed_first(
    bare_window: MainWindow,
) -> None:
    a = toy("a")
    bare_window.install([toy("b", a), a])
    assert EVENTS == [("a", "install"), ("b", "install")]
    bare_window.controller.close()
    bare_window.controller.close()
    assert EVENTS[2:] == [("b", "shutdown"), ("a", "shutdown")]


def test_closing_the_window_closes_its_workspace_and_stops_the_real_features(
    qtbot: QtBot, make_window: WindowFactory
) -> None:
    from axmem_gui.ui.catalog.feature import CATALOG
    from axmem_gui.ui.lint.install import LINT
    from axmem_gui.ui.retrieval.feature import RETRIEVAL
    from axmem_gui.ui.suites.feature import SUITES

    win = make_window()
    controller = win.controller
    state = win.feature(RETRIEVAL).state
    qtbot.waitUntil(lambda: state.ready, timeout=10000)
    # An edit leaves debounced work behind: a retrieval refresh, a suite rerun, a lint run.
    page = win.feature(CATALOG).pages["skills"]
    page.select_id("release-checklist")
    qtbot.keyClicks(page.form.name_edit, ", edited")
    page.form.commit_pending()
    assert state.pending
    win.close()
    assert controller.is_closed
    assert not state.pending
    assert not win.feature(SUITES).page._rerun_timer.isActive()
    linter = win.feature(LINT).linter
    linter.run_now()  # refused: it would read a closed workspace
    assert not linter.running
    assert not win.task_runner.busy
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


# pages built on first use ----------------------------------------------------------
class LazyToy:
    built = 0

    def __init__(self, context: FeatureContext) -> None:
        del context

    def build(self) -> QLabel:
        LazyToy.built += 1
        return QLabel("lazy page")

    def contributions(self) -> Contributions:
        return Contributions(pages=[PageSpec("lazy", "Lazy", build=self.build)])

    def shutdown(self) -> None:
        pass


def test_a_page_given_as_a_build_function_is_built_once_when_first_shown(
    bare_window: MainWindow,
) -> None:
    LazyToy.built = 0
    eager = FeatureSpec("eager", _Eager)
    bare_window.install((eager, FeatureSpec("lazy", LazyToy)))
    assert bare_window.current_section() == "eager" and LazyToy.built == 0
    bare_window.show_section("lazy")
    assert LazyToy.built == 1
    shown = bare_window.stack.currentWidget()
    assert isinstance(shown, QLabel) and shown.text() == "lazy page"
    bare_window.show_section("eager")
    bare_window.show_section("lazy")
    assert LazyToy.built == 1 and bare_window.pages["lazy"] is shown


class _Eager(LazyToy):
    def contributions(self) -> Contributions:
        return Contributions(pages=[PageSpec("eager", "Eager", QLabel("eager page"))])




def test_the_documented_example_is_the_code_and_its_action_is_registered(
    window: MainWindow,
) -> None:
    """docs/features.md's example once showed an `evals.run` action on Ctrl+Shift+R that
    no code had: its block is now the bench feature's code, line for line, in order."""
    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "features.md").read_text(encoding="utf-8")
    block = doc.split("```python\n", 1)[1].split("```", 1)[0]
    source = (root / "axmem_gui" / "ui" / "bench" / "feature.py").read_text(encoding="utf-8")
    lines = iter(source.splitlines())
    for line in block.splitlines():
        if line.strip() and not line.strip().startswith("#"):
            assert any(candidate == line for candidate in lines), line
    assert window.action_registry.get("bench.run") is not None
    assert "evals.run" not in doc and "Ctrl+Shift+R" not in doc
