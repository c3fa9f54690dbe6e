"""The main window's central pages, by section key, and how a page made on first use
comes to be.

A page the first paint does not show is built when it is first needed. What its build
waits for that no widget needs (importing its modules and the engine behind them,
asking the OS which keyring it has, reading the provider model lists: hundreds of
milliseconds, Sessions froze 850 ms and Evals 1,367 ms on their first visit) is its
`prepare` (PageSpec.prepare), which runs on a job of the pages' own runner: when the
user first opens the page (a "Loading…" placeholder shows meanwhile), and for every
page not opened yet once the window's background work is done. The build that follows
is then only widgets, made on the GUI thread in two turns of the event loop (the page,
then its style sheet), so neither freezes a frame for long.

Code that needs a page at once (`pages[key]`, `MainWindow.show_section`) still gets it
at once: it builds the page right there, prepared or not."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget

from axmem_gui.ui.feature import FeatureError
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.resources import style_leaves, with_base
from axmem_gui.ui.tasks import JobContext, TaskRunner

if TYPE_CHECKING:
    from axmem_gui.ui.feature import PageSpec


class _Lazy:
    """A page not built yet: how to prepare and build it, and its stand-in."""

    __slots__ = ("build", "job", "placeholder", "prepare", "prepared", "title", "widget")

    def __init__(
        self,
        title: str,
        build: Callable[[], QWidget],
        prepare: Callable[[], object] | None,
        placeholder: QLabel,
    ) -> None:
        self.title = title
        self.build = build
        self.prepare = prepare
        self.prepared = prepare is None
        self.job: int | None = None
        self.placeholder = placeholder
        #: Built, not styled yet (between the two turns of an opening).
        self.widget: QWidget | None = None


class WindowPages(Mapping[str, QWidget]):
    """The window's pages by section key, in navigator order. Reading a page that is
    built on first use builds it; iterating the keys builds nothing."""

    def __init__(self, stack: QStackedWidget, owner: QObject) -> None:
        self._stack = stack
        self._widgets: dict[str, QWidget] = {}
        self._lazy: dict[str, _Lazy] = {}
        #: Prepares pages: one job at a time, never behind the window's index or lint.
        self.runner = TaskRunner(max_threads=1, parent=owner)
        self.runner.finished.connect(self._on_prepared)
        self.runner.failed.connect(self._on_prepared)
        self.runner.cancelled.connect(self._on_prepared)
        #: The page the user opened, waiting to be prepared or built (its key).
        self._opening: str | None = None
        self._warming = False

    def add(self, spec: PageSpec) -> None:
        key = spec.key
        if key in self:
            raise FeatureError(f"page {key!r}: contributed twice")
        if spec.widget is not None:
            self._widgets[key] = spec.widget
            self._stack.addWidget(spec.widget)
            return
        assert spec.build is not None
        placeholder = plain_label(f"Loading {spec.title}…")
        placeholder.setObjectName(f"{key}PagePending")
        placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        style_leaves(placeholder, "base")
        self._lazy[key] = _Lazy(spec.title, spec.build, spec.prepare, placeholder)
        self._stack.addWidget(placeholder)

    def built(self, key: str) -> bool:
        return key in self._widgets

    def prepared(self, key: str) -> bool:
        """The page is built, or what its build waits for is done."""
        lazy = self._lazy.get(key)
        return lazy is None or lazy.prepared

    # opening a page as the user does -------------------------------------------------
    def open(self, key: str) -> None:
        """Show page `key`: at once when it is built; else its placeholder, until it is
        prepared (on a job) and built (in the next turns of the event loop)."""
        widget = self._widgets.get(key)
        if widget is not None:
            self._opening = None
            self._stack.setCurrentWidget(widget)
            return
        lazy = self._lazy[key]
        self._opening = key
        self._stack.setCurrentWidget(lazy.placeholder)
        if lazy.prepared:
            QTimer.singleShot(0, self._stack, self._build_opening)
        else:
            self._prepare(key)

    def warm_up(self) -> None:
        """Prepare every page not prepared yet, one after another (the window calls this
        once its background work is done: a first visit then only builds widgets)."""
        self._warming = True
        self._prepare_next()

    def _prepare_next(self) -> None:
        if any(lazy.job is not None for lazy in self._lazy.values()):
            return  # one at a time: the next starts when this one ends
        waiting = [k for k, lazy in self._lazy.items() if not lazy.prepared]
        if self._opening in waiting:
            self._prepare(self._opening)
        elif self._warming and waiting:
            self._prepare(waiting[0])

    def _prepare(self, key: str) -> None:
        lazy = self._lazy[key]
        if lazy.job is not None or lazy.prepared or lazy.prepare is None:
            return
        prepare = lazy.prepare

        def job(_ctx: JobContext) -> object:
            return prepare()

        lazy.job = self.runner.submit(job)

    def _on_prepared(self, job_id: int, *_outcome: object) -> None:
        for key, lazy in self._lazy.items():
            if lazy.job == job_id:
                lazy.job = None
                # Failed or not, the build may run now: what went wrong is met (and told)
                # there, on the GUI thread, as it was before pages were prepared.
                lazy.prepared = True
                if key == self._opening:
                    QTimer.singleShot(0, self._stack, self._build_opening)
                break
        self._prepare_next()

    def _build_opening(self) -> None:
        key = self._opening
        if key is None or key not in self._lazy:
            return
        widget = self._build(key)
        # Its style sheet in a turn of its own: the page stays behind its placeholder.
        QTimer.singleShot(0, self._stack, lambda: self._style_and_show(key, widget))

    def _style_and_show(self, key: str, widget: QWidget) -> None:
        self._style(key, widget)
        if self._opening == key:
            self._opening = None
            self._stack.setCurrentWidget(widget)

    # building ---------------------------------------------------------------------------
    def _build(self, key: str) -> QWidget:
        """The page, built and on the stack behind its placeholder (not styled yet)."""
        lazy = self._lazy[key]
        if lazy.widget is None:
            lazy.widget = lazy.build()
            self._stack.insertWidget(self._stack.indexOf(lazy.placeholder), lazy.widget)
        return lazy.widget

    def _style(self, key: str, widget: QWidget) -> None:
        lazy = self._lazy.pop(key, None)
        if lazy is None:
            return
        with_base(widget)  # built after the first paint: "base" as its container sheet
        if self._stack.currentWidget() is lazy.placeholder:
            self._stack.setCurrentWidget(widget)
        self._stack.removeWidget(lazy.placeholder)
        lazy.placeholder.deleteLater()
        if lazy.job is not None:
            self.runner.cancel(lazy.job)
        self._widgets[key] = widget

    def __getitem__(self, key: str) -> QWidget:
        found = self._widgets.get(key)
        if found is not None:
            return found
        self._lazy[key]  # KeyError for an unknown key, as a dict
        widget = self._build(key)
        if self._opening == key:
            self._opening = None
        self._style(key, widget)
        return widget

    def __contains__(self, key: object) -> bool:
        return key in self._widgets or key in self._lazy

    def __iter__(self) -> Iterator[str]:
        order = {self._stack.indexOf(w): k for k, w in self._widgets.items()}
        order.update({self._stack.indexOf(p.placeholder): k for k, p in self._lazy.items()})
        return iter([order[i] for i in sorted(order)])

    def __len__(self) -> int:
        return len(self._widgets) + len(self._lazy)

    def shutdown(self) -> None:
        self.runner.shutdown()
