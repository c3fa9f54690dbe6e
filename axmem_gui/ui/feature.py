"""The feature contract: how a feature plugs into the desktop app (docs/features.md).

A feature is registered as a `FeatureSpec`: a name, the specs it needs, and a factory that
receives a `FeatureContext` (workspace controller, task runner, undo stack, action
registry, settings, and a narrow `Shell` onto the window) and returns the feature object.
The feature object says what it contributes (`Contributions`: pages, docks, status widgets,
a drop target) and how it stops (`shutdown`, called once when the workspace closes). Its
actions go into the context's `ActionRegistry` with a menu place. The window installs the
registered features in the order their needs give and lays out what they contribute; it
never swaps, patches or probes anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QUndoStack
from PySide6.QtWidgets import QWidget

from axmem_gui.core.errors import AxmemError
from axmem_gui.services.agent_runner import AgentRunner
from axmem_gui.ui.controller import WorkspaceController
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.tasks import TaskRunner
from axmem_gui.ui.writes import WriteQueue

MenuName = Literal["file", "edit", "view", "run", "help"]
#: How long a status-bar message stays by default.
STATUS_MS = 6000


class FeatureError(AxmemError):
    """A feature set that cannot be installed: a need not registered, or a cycle."""


@dataclass(frozen=True)
class MenuPlace:
    """Where an action goes: a menu, and a group in it. Actions of one group sit together
    in the order they were added; groups are separated and come in the order their first
    action was added (features install in the order of their needs)."""

    menu: MenuName
    group: str


@dataclass(frozen=True)
class PageSpec:
    """A central page with its navigator section. The section's count is the workspace
    count of the same key (0 when the workspace counts no such thing).

    A feature whose page is not needed for the first paint contributes `build` instead of
    `widget` (and creates what the page needs there, e.g. behind a property); the window
    calls it once, when the page is first shown or `window.pages[key]` is read."""

    key: str
    title: str
    #: The page's widget; or None with `build`, for a page the window creates when it is
    #: first shown or asked for (the first paint waits only for the pages it shows).
    widget: QWidget | None = None
    build: Callable[[], QWidget] | None = None
    #: What `build` waits for that touches no widget (importing the page's modules,
    #: warming the caches it reads), run on a job before the page's first build: when the
    #: user first opens it, or once the window is idle. Called on any thread; it must
    #: neither create nor touch a Qt object, nor read the workspace's connection.
    prepare: Callable[[], object] | None = None

    def __post_init__(self) -> None:
        if (self.widget is None) == (self.build is None):
            raise FeatureError(f"page {self.key!r}: give either a widget or a build function")
        if self.prepare is not None and self.build is None:
            raise FeatureError(f"page {self.key!r}: only a page built later is prepared")


@dataclass(frozen=True)
class DockSpec:
    """A dock widget. `name` is its object name (the saved window layout refers to it)."""

    name: str
    title: str
    widget: QWidget
    area: Qt.DockWidgetArea
    #: View menu text and shortcut of the dock's toggle (the title when empty).
    toggle_text: str = ""
    toggle_shortcut: str = ""
    #: Share a tab group with this dock (when registered), which stays in front.
    tabify_with: str = ""
    #: Width (left/right) or height (top/bottom) on a first start, 0 to let Qt choose.
    first_size: int = 0
    #: Shown when the window opens without a saved layout (the welcome, once dismissed,
    #: is not).
    shown: bool = True
    #: The pages (section keys) the dock belongs to: shown there, hidden on the others
    #: unless the user asks for it there (remembered per page). Empty: every page.
    pages: tuple[str, ...] = ()
    #: No title bar (a banner that closes itself, like the welcome): its height is the
    #: content's. It still has a View menu toggle.
    banner: bool = False


class DropTarget(Protocol):
    """Files dropped on the window (not on a page that takes them itself)."""

    def accepts_drop(self, paths: Sequence[Path]) -> bool: ...

    def drop(self, paths: Sequence[Path]) -> None: ...


@dataclass
class Contributions:
    pages: list[PageSpec] = field(default_factory=list)
    docks: list[DockSpec] = field(default_factory=list)
    #: Permanent status-bar widgets, right of the window's own.
    status_widgets: list[QWidget] = field(default_factory=list)
    drop_target: DropTarget | None = None


class Feature(Protocol):
    def contributions(self) -> Contributions: ...

    def shutdown(self) -> None:
        """The workspace is closing: stop timers and jobs that would read it."""
        ...


F = TypeVar("F", bound=Feature)
F_co = TypeVar("F_co", bound=Feature, covariant=True)


@dataclass(frozen=True, eq=False)
class FeatureSpec(Generic[F_co]):
    """One registration: `needs` are installed first and reachable via `context.need`."""

    name: str
    create: Callable[[FeatureContext], F_co]
    needs: tuple[FeatureSpec[Feature], ...] = ()


class Shell(QObject):
    """What a feature may ask of the window that hosts it (and nothing more)."""

    #: The navigator shows another section (its key).
    section_changed = Signal(str)
    #: Focus mode (View > Focus on the Editor) for a page: key, on. Emitted whenever a
    #: page is shown, with that page's state.
    focus_changed = Signal(str, bool)

    @property
    def dialog_parent(self) -> QWidget:
        raise NotImplementedError

    def show_section(self, key: str) -> None:
        raise NotImplementedError

    def current_section(self) -> str:
        raise NotImplementedError

    def set_badge(self, key: str, text: str) -> None:
        raise NotImplementedError

    def show_message(self, text: str, msecs: int = STATUS_MS) -> None:
        raise NotImplementedError

    def show_dock(self, name: str) -> None:
        """Show a dock and bring it to the front of its tab group."""
        raise NotImplementedError

    def hide_dock(self, name: str) -> None:
        raise NotImplementedError

    def after_first_paint(self, callback: Callable[[], object]) -> None:
        """Call `callback` once, after the window's first paint (at once when it has
        painted already; when the event loop first runs if the window is not shown):
        background work started before then would share the GIL with start-up."""
        raise NotImplementedError


class ActionRegistry(QObject):
    """Every feature's actions, by id, with their menu places."""

    #: A menu is about to open (its name): commit what the user is typing, etc.
    menu_opening = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._actions: dict[str, QAction] = {}
        self._places: list[tuple[MenuPlace, QAction]] = []

    def add(self, action_id: str, action: QAction, place: MenuPlace | None = None) -> QAction:
        if action_id in self._actions:
            raise FeatureError(f"action {action_id!r}: registered twice")
        self._actions[action_id] = action
        if place is not None:
            self._places.append((place, action))
        return action

    def get(self, action_id: str) -> QAction:
        return self._actions[action_id]

    def ids(self) -> list[str]:
        return list(self._actions)

    def groups(self, menu: MenuName) -> list[tuple[str, list[QAction]]]:
        """The groups of `menu` in the order their first action was added."""
        out: dict[str, list[QAction]] = {}
        for place, action in self._places:
            if place.menu == menu:
                out.setdefault(place.group, []).append(action)
        return list(out.items())


@dataclass(frozen=True)
class FeatureContext:
    controller: WorkspaceController
    runner: TaskRunner
    undo_stack: QUndoStack
    actions: ActionRegistry
    settings: AppSettings
    shell: Shell
    #: Starts agent runs and replays in child processes (services.agent_runner).
    agents: AgentRunner
    _installed: Mapping[FeatureSpec[Any], Feature] = field(default_factory=dict, repr=False)
    _needs: tuple[FeatureSpec[Any], ...] = ()
    #: The window's writes that wait for another program (ui/writes.py).
    writes: WriteQueue | None = None

    def need(self, spec: FeatureSpec[F]) -> F:
        """The installed feature of a declared need."""
        if spec not in self._needs:
            raise FeatureError(f"feature {spec.name!r}: used but not declared in needs")
        found = self._installed[spec]
        return found  # type: ignore[return-value]  # installed by `spec.create`


def install_order(specs: Iterable[FeatureSpec[Any]]) -> list[FeatureSpec[Any]]:
    """`specs` ordered so every need comes before its users; otherwise in the given order.
    Raises FeatureError for a need that is not registered and for a cycle."""
    given = list(dict.fromkeys(specs))
    names: dict[str, FeatureSpec[Any]] = {}
    for spec in given:
        if names.setdefault(spec.name, spec) is not spec:
            raise FeatureError(f"feature {spec.name!r}: registered twice")
    for spec in given:
        for need in spec.needs:
            if need not in given:
                raise FeatureError(
                    f"feature {spec.name!r} needs {need.name!r}, which is not registered"
                )
    order: list[FeatureSpec[Any]] = []
    visiting: list[FeatureSpec[Any]] = []

    def visit(spec: FeatureSpec[Any]) -> None:
        if spec in order:
            return
        if spec in visiting:
            cycle = [s.name for s in visiting[visiting.index(spec) :]] + [spec.name]
            raise FeatureError(f"features need each other: {' -> '.join(cycle)}")
        visiting.append(spec)
        for need in spec.needs:
            visit(need)
        visiting.pop()
        order.append(spec)

    for spec in given:
        visit(spec)
    return order


@dataclass
class InstalledFeatures:
    """The features of a window, in install order, with what they contributed."""

    features: dict[FeatureSpec[Any], Feature] = field(default_factory=dict)
    contributions: dict[FeatureSpec[Any], Contributions] = field(default_factory=dict)
    stopped: bool = False

    def get(self, spec: FeatureSpec[F]) -> F:
        return self.features[spec]  # type: ignore[return-value]  # made by `spec.create`

    def shutdown(self) -> None:
        """Stop every feature once, the last installed first."""
        if self.stopped:
            return
        self.stopped = True
        for feature in reversed(list(self.features.values())):
            feature.shutdown()


def install(specs: Sequence[FeatureSpec[Any]], base: FeatureContext) -> InstalledFeatures:
    """Create the features in need order, each with a context that reaches its needs."""
    installed = InstalledFeatures()
    for spec in install_order(specs):
        context = FeatureContext(
            base.controller,
            base.runner,
            base.undo_stack,
            base.actions,
            base.settings,
            base.shell,
            base.agents,
            installed.features,
            spec.needs,
            writes=base.writes,
        )
        feature = spec.create(context)
        installed.features[spec] = feature
        installed.contributions[spec] = feature.contributions()
    return installed
