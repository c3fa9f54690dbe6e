"""A catalog and the search indexes its owner keeps of it, lent to a reader on another
thread: the app's live search state (services/live_search.py) lends them to lint
(`LintSession`, core/lint/incremental.py) instead of lint building its own. `ReadGate`
says when the owner may patch them again."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.catalog import Catalog


@dataclass(frozen=True)
class SharedIndex:
    """An index someone else keeps of one kind's entries, and each entry's handle in it."""

    index: SearchIndex
    handles: Mapping[str, int]


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class IndexedCatalog:
    """A catalog and the indexes made of exactly its entries, lent to a `LintSession`:
    read only, and only until `release()` (then their owner may patch them again).
    `release` may be called from any thread, more than once."""

    catalog: Catalog
    skills: SharedIndex
    memories: SharedIndex
    release: Callable[[], None] = _nothing


class ReadGate:
    """Who may patch an index now: its owner's thread takes a `lend()` before handing the
    index to a reader on another thread and patches only while nobody holds one; the
    reader's `release` (idempotent, from any thread) gives it back."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._readers = 0
        #: How many times the index was lent (tests count it).
        self.lent = 0

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._readers > 0

    def lend(self) -> Callable[[], None]:
        """One more reader; returns its release."""
        with self._lock:
            self._readers += 1
            self.lent += 1
        done = [False]

        def release() -> None:
            with self._lock:
                if not done[0]:
                    done[0] = True
                    self._readers -= 1

        return release
