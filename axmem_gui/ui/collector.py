"""The cyclic garbage collector's policy in the GUI process: `GuiThreadCollector` (its
docstring has the four rules) keeps the collector on, frees nothing off the GUI thread,
collects the young generations at the task runner's safe points while jobs run, makes the
rare major collections at idle points once the user pauses, and takes long-lived records
out of every collection (`retire`).

The task runner (tasks.py) tells it when jobs run and gives it its safe points; the
window watches the user's input for it; the catalog and lint jobs retire what they build.
Why this policy and not a simpler one, measured: docs/design.md, "The garbage collector's
policy"."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable

import shiboken6
from PySide6.QtCore import QEvent, QObject, QTimer

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint.model import Finding


class GuiThreadCollector:
    """Keeps the cyclic garbage collector on, and everything it frees on the GUI thread.

    A collection runs in whichever thread allocates past a threshold. On a worker thread it
    could destroy Qt objects that became garbage on the GUI thread, and destroying a QObject
    off its thread crashes Qt. Four rules:

    1. *Nothing is freed off the GUI thread.* A collection that starts on another thread
       first freezes every tracked object (`gc.freeze`: they move to the permanent
       generation, which collections skip), so it finds nothing. That is the safety net.
    2. *While jobs run, the GUI thread collects the young generations.* The busy runner
       raises generation 0's threshold (`BUSY_THRESHOLD`), so a worker seldom reaches it,
       and the GUI thread collects generation 0 (or 1, by CPython's own counts) at its safe
       points. A young collection costs what was allocated since the last one, not what is
       alive: a long job's garbage dies young, on the GUI thread, cheaply. A young
       generation that grew past `BUSY_THRESHOLD` anyway (a worker built a big structure
       with the collector disabled, like the search index) is frozen rather than scanned:
       it is alive, and long-lived. So is a middle generation grown past `MIDDLE_FREEZE`
       (what survived the young collections of a job building a big result, like a lint
       report's 100,000 findings): once the young garbage is collected it is frozen, not
       scanned, and left to the next major.
    3. *Frozen objects stay frozen; a major collection takes back their garbage now and
       then*: unfreeze, a full collection on the GUI thread, freeze the survivors. So the
       long-lived objects (the shared search index: about a million objects at 10,000
       skills and 100,000 memories) are out of every other collection, and CPython's own
       generation-2 collections scan only what grew old since. Frozen garbage is only
       cyclic garbage (reference counting frees the rest wherever it dies), so majors can
       be rare: one runs when the runners go idle once workers froze a quarter as much as
       the last major kept (`IDLE_MAJOR_MIN` at least), or anything at all and
       `MAJOR_INTERVAL_S` passed; during a job only past `JOB_MAJOR_MIN` and as much as
       the last major kept (a bound on memory for a job that outruns the safe points).
    4. *Records are not walked at all.* A catalog's entries and a lint report's findings
       (`RECORD_TYPES`: frozen, slotted, holding text and tuples of text) are hundreds of
       thousands of long-lived objects that can never be part of a reference cycle, so no
       collection can free one: `retire` untracks them, and the tuples and dicts that hold
       only them, as CPython itself untracks a tuple or dict of atoms (reference counting
       still frees them). A major collection then walks what can hold cycles, not the
       catalog (at 10,000 skills and 100,000 memories: about 100,000 objects, mostly the
       program's own modules, classes and functions, against 420,000).

    One per process, because `gc.callbacks` and the thresholds are; installed by the
    first task runner."""

    def __init__(self) -> None:
        #: Collections started off the GUI thread (frozen) since the last major.
        self.deferred = 0
        #: Collections made on the GUI thread at safe points (tests and benchmarks read it).
        self.collections = 0
        #: Major collections (unfreeze, full, freeze) made on the GUI thread.
        self.majors = 0
        #: Records taken out of the collector's walk (`retire`).
        self.retired = 0
        self._gui_thread: int | None = None
        self._frozen_young = 0  # young objects workers froze since the last major (estimate)
        self._young_at_start = 0  # generation 0's count when a GUI-thread collection starts
        self._middle = 0  # objects in generation 1 (estimate: survivors of young collections)
        self._survivors = 0  # objects frozen as long-lived (by the last major, or built)
        self._last_major = time.monotonic()
        self._thresholds = gc.get_threshold()
        self._busy: weakref.WeakSet[QObject] = weakref.WeakSet()
        self._last_input = -INPUT_QUIET_S  # when the user last used a watched window
        self._idle_retry = False  # an idle point waits for the user to pause

    def install(self) -> None:
        """Call on the GUI thread; once is enough."""
        if self._gui_thread is None:
            self._gui_thread = threading.get_ident()
            self._thresholds = gc.get_threshold()
            gc.callbacks.append(self._on_collection)

    @property
    def on_gui_thread(self) -> bool:
        return threading.get_ident() == self._gui_thread

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        if not self.on_gui_thread:
            if phase == "start":
                self._frozen_young += gc.get_count()[0]
                gc.freeze()
                self.deferred += 1
                self._middle = 0
        elif phase == "start":
            self._young_at_start = gc.get_count()[0]
        elif info["generation"] == 0:
            self._middle += max(self._young_at_start - info["collected"], 0)
        else:
            self._middle = 0

    def set_busy(self, runner: QObject, busy: bool, idle_delay_ms: int = 0) -> None:
        """A runner started (or finished) its jobs. Generation 0's threshold is raised
        while any runner is busy, so the GUI thread's safe points do the young collections;
        `idle_delay_ms` after the last one finishes comes an `idle_point`."""
        if busy:
            self._busy.add(runner)
        else:
            self._busy.discard(runner)
        self._drop_deleted()
        threshold0, threshold1, threshold2 = self._thresholds
        if self._busy and threshold0:
            gc.set_threshold(max(threshold0, BUSY_THRESHOLD), threshold1, threshold2)
        else:
            gc.set_threshold(threshold0, threshold1, threshold2)
        if not self._busy and self.on_gui_thread:
            if idle_delay_ms <= 0:
                self.idle_point()
            else:
                QTimer.singleShot(idle_delay_ms, self.idle_point)

    def _drop_deleted(self) -> None:
        """A runner whose Qt object was deleted while a job of its ran (its window closed
        mid-job; the job's thread still holds the Python side) never reports the end: it
        is not busy any more, or no major collection would ever come again."""
        gone = [runner for runner in list(self._busy) if not shiboken6.isValid(runner)]
        for runner in gone:
            self._busy.discard(runner)
        if gone and not self._busy:
            gc.set_threshold(*self._thresholds)

    @property
    def busy(self) -> bool:
        """Whether a job of a live runner is running."""
        self._drop_deleted()
        return bool(self._busy)

    def safe_point(self) -> None:
        """On the GUI thread, while jobs run: collect the young generations if CPython would
        have by now."""
        if not self.on_gui_thread:
            return
        if self.deferred and self._frozen_young >= max(JOB_MAJOR_MIN, self._survivors):
            self.major()
            return
        young, middle, _old = gc.get_count()
        threshold0, threshold1, _threshold2 = self._thresholds
        if young >= BUSY_THRESHOLD:
            gc.freeze()  # built while the collector was off: alive, and long-lived
            self._survivors += young
            self._middle = 0
        elif threshold0 and young >= threshold0:
            if middle >= threshold1 and self._middle >= MIDDLE_FREEZE:
                # Survived young collections: long-lived, mostly. A major checks them.
                gc.collect(0)
                self._frozen_young += self._middle
                self.deferred += 1
                gc.freeze()
                self._middle = 0
            else:
                gc.collect(1 if middle >= threshold1 else 0)
            self.collections += 1

    def watch_input(self, window: QObject) -> None:
        """Watch the user's input to `window` (a top-level `QWindow`): an idle point's
        major collection (tens of ms) waits until the user pauses, so that it never
        lands in the middle of a scroll or a burst of typing. Cheap: a window's own
        events are its input, exposures and one update per frame, not its widgets'."""
        window.installEventFilter(_InputWatch(self, window))

    def note_input(self) -> None:
        self._last_input = time.monotonic()

    def idle_point(self) -> None:
        """On the GUI thread when no job runs: a major collection if workers froze enough
        since the last one, or anything and `MAJOR_INTERVAL_S` passed since it; once the
        user paused for `INPUT_QUIET_S` (see `watch_input`)."""
        self._drop_deleted()
        if not self.on_gui_thread or self._busy or not self.deferred:
            return
        quiet = time.monotonic() - self._last_input
        if quiet < INPUT_QUIET_S:
            if not self._idle_retry:
                self._idle_retry = True
                QTimer.singleShot(int((INPUT_QUIET_S - quiet) * 1000) + 1, self._retry_idle)
            return
        enough = self._frozen_young >= max(IDLE_MAJOR_MIN, self._survivors // 4)
        if enough or time.monotonic() - self._last_major >= MAJOR_INTERVAL_S:
            self.major()

    def _retry_idle(self) -> None:
        self._idle_retry = False
        self.idle_point()

    def retire(self, records: Iterable[object]) -> int:
        """Untrack the long-lived `records` so that no collection walks them again: the
        instances of `RECORD_TYPES`, and tuples holding nothing tracked (CPython's own
        rule, which it applies only when a collection reaches them); anything else is left
        as it is. Then `records` itself, when it is a tuple, or a dict (its values), holding
        nothing tracked any more (CPython keeps those tracked: it takes any instance for
        one that may hold a cycle, and a dict given a tracked key or value later is tracked
        again by CPython itself). Returns how many objects it untracked. Any thread (a job
        retires what it built; the GIL orders it with collections)."""
        untrack = _UNTRACK
        if untrack is None:
            return 0
        is_tracked, kinds = gc.is_tracked, RECORD_TYPES
        values: Iterable[object] = records
        if type(records) is dict:
            values = records.values()
        tracked = list(filter(is_tracked, values))
        count = 0
        left = False  # something tracked stays so: so does the container
        if tracked and set(map(type, tracked)) <= kinds:
            deque(map(untrack, map(id, tracked)), maxlen=0)  # records only: at C speed
            count = len(tracked)
        else:
            for item in tracked:
                kind = type(item)
                if kind in kinds or (kind is tuple and not any(map(is_tracked, item))):  # type: ignore[call-overload]
                    untrack(id(item))
                    count += 1
                else:
                    left = True
        if (
            not left
            and type(records) in (tuple, dict)
            and is_tracked(records)
            and not (type(records) is dict and any(map(is_tracked, records)))  # its keys
        ):
            untrack(id(records))
            count += 1
        self.retired += count
        return count

    def retire_catalog(self, catalog: Catalog) -> int:
        """`retire` a catalog's entries (a catalog just read, to be kept)."""
        return self.retire(catalog.skills) + self.retire(catalog.memories)

    def major(self) -> None:
        """Unfreeze, collect everything on the GUI thread, freeze the survivors."""
        if not self.on_gui_thread:
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._survivors = gc.get_freeze_count()
        self.deferred = self._frozen_young = self._middle = 0
        self.majors += 1
        self.collections += 1
        self._last_major = time.monotonic()


class _InputWatch(QObject):
    """Tells the collector when the user works a window (an event filter on it)."""

    def __init__(self, collector: GuiThreadCollector, window: QObject) -> None:
        super().__init__(window)
        self._note = collector.note_input

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _INPUT_EVENTS:
            self._note()
        return False


_INPUT_EVENTS = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.KeyRelease,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
        QEvent.Type.TouchBegin,
        QEvent.Type.TouchUpdate,
        QEvent.Type.TouchEnd,
        QEvent.Type.TabletPress,
        QEvent.Type.TabletMove,
    }
)


def _untracker() -> Callable[[int], None] | None:
    """CPython's `PyObject_GC_UnTrack` (what the collector itself does to a tuple of
    atoms), called with an object's address (`id`; the caller holds the object), or None
    where it cannot be had: records then stay tracked, which only costs time. (The GIL is
    held through the call: `pythonapi` functions keep it.)"""
    try:
        import ctypes

        prototype = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)
        untrack: Callable[[int], None] = prototype(("PyObject_GC_UnTrack", ctypes.pythonapi))
    except (ImportError, AttributeError, OSError):
        return None
    return untrack


_UNTRACK = _untracker()
#: What `retire` untracks: immutable (frozen, slotted) and made of text, numbers and
#: tuples of text, plus, for entries, the `extra` mapping of the file they were read from,
#: which never refers back to the entry. Such an object cannot be part of a reference
#: cycle, so leaving it out of collections frees exactly what they would have freed.
RECORD_TYPES: frozenset[type] = frozenset({Skill, Memory, Finding})
#: An idle point's major collection waits until the user has not touched a watched
#: window for this long.
INPUT_QUIET_S = 1.0
#: Generation 0's threshold while jobs run (CPython's default is 700 on 3.11 and 3.12).
BUSY_THRESHOLD = 25_000
#: While jobs run: a middle generation this big (estimated, in objects) is frozen, not
#: collected. Its cost is what its objects refer to: at 10,000 skills and 100,000
#: memories, 28,000 objects of a lint job in the making took 30-45 ms to scan (and freed
#: nothing).
MIDDLE_FREEZE = 10_000
#: At an idle point: a major once workers froze this many young objects (or a quarter of
#: what the last major kept, if more), or anything at all and this long passed.
IDLE_MAJOR_MIN = 250_000
MAJOR_INTERVAL_S = 600.0
#: During a job: a major once workers froze this many young objects (or as many as the
#: last major kept, if more).
JOB_MAJOR_MIN = 2_000_000
#: The one per process (installed by the first task runner; read through this module, so
#: that bench/gc_policies.py can put another policy in its place before the app starts).
COLLECTOR = GuiThreadCollector()
