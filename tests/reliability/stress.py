"""The shared-workspace stress (issue 25): the app editing, the CLI importing and tagging,
a third program reading with sqlite3, file dialogs opening at random.

`AppStress` runs inside the app (app_driver.py's `stress` command): it types into the
real form as fast as the write queue lets a user, opens and cancels the real Open
Workspace dialog at random, and records every write the app acknowledged (the form's
edit announced as saved), every error it showed, its waits and the longest gap of the GUI
thread's event loop. `Load` runs the other programs from the test. `verify` reads the
file afterwards."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Skills the app creates and edits (the CLI leaves them alone: no conflicts to resolve).
APP_SKILLS = 4
EDIT_MS = 15
HEARTBEAT_MS = 5


class AppStress:
    """In the app's process, on its GUI thread."""

    def __init__(
        self,
        window: Any,
        seconds: float,
        seed: int,
        bound_s: float | None,
        answer: Callable[[dict[str, Any]], None],
    ) -> None:
        from PySide6.QtCore import QTimer

        from axmem_gui.ui.catalog.feature import CATALOG

        self.window = window
        self.catalog = window.feature(CATALOG)
        self.page = self.catalog.pages["skills"]
        self.rng = random.Random(seed)
        self.seconds = seconds
        self.answer = answer
        # (getattr: the same stress runs against the old app, which had no write queue)
        self.writes = getattr(window, "writes", None)
        if bound_s is not None and self.writes is not None:
            self.writes.wait_s = bound_s
        self.bound_s = bound_s
        self.owned: list[str] = []
        self.acknowledged: dict[str, list[str]] = {}
        self.errors: list[str] = []
        self.conflicts = 0
        self.typed = 0
        self.dialogs = 0
        self.longest_stall_s = 0.0
        self._last_beat = time.monotonic()
        self._in_dialog = False
        self._stopping = False
        self.heartbeat = QTimer()
        self.heartbeat.timeout.connect(self._beat)
        self.editor = QTimer()
        self.editor.timeout.connect(self._edit)
        self.dialog_timer = QTimer()
        self.dialog_timer.setSingleShot(True)
        self.dialog_timer.timeout.connect(self._open_dialog)

    def start(self) -> None:
        from PySide6.QtCore import QTimer

        from axmem_gui.ui.commands import Resolution
        from axmem_gui.ui.dialogs import ErrorDialog

        # Errors are counted, not shown modally; a conflict (none expected) keeps theirs.
        ErrorDialog.show = classmethod(lambda _cls, _p, _t, text: self.errors.append(text))  # type: ignore[method-assign,assignment]

        def conflict(_error: object) -> Resolution:
            self.conflicts += 1
            return Resolution.THEIRS

        self.catalog.session.resolver = conflict
        self.catalog.session.entries_changing.connect(self._on_saved)
        self.window.show_section("skills")
        for _ in range(APP_SKILLS):
            self.catalog.new_entry("skills")
        self.heartbeat.start(HEARTBEAT_MS)
        self.editor.start(EDIT_MS)
        self.dialog_timer.start(self.rng.randint(500, 2500))
        QTimer.singleShot(int(self.seconds * 1000), self._stop)

    def _beat(self) -> None:
        now = time.monotonic()
        if not self._in_dialog:
            self.longest_stall_s = max(self.longest_stall_s, now - self._last_beat)
        self._last_beat = now

    def _on_saved(self, kind: str, ids: list[str], _structural: bool) -> None:
        if kind != "skills":
            return
        catalog = self.window.controller.workspace.catalog
        for entry_id in ids:
            found = catalog.get("skills", entry_id)
            if found is None:
                continue
            skill = found.entry
            if entry_id.startswith("new-skill") and entry_id not in self.owned:
                self.owned.append(entry_id)
            if entry_id in self.owned and skill.name.startswith("stress "):
                self.acknowledged.setdefault(entry_id, []).append(skill.name)

    def _edit(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        if self._in_dialog or not self.owned or self._stopping:
            return
        entry_id = self.rng.choice(self.owned)
        if self.page.current_id() != entry_id:
            self.page.focus_entry(entry_id)
        form = self.page.form
        if form.entry is None or form.entry.id != entry_id:
            return
        self.typed += 1
        # A new skill's id follows its name until renamed by hand (the naming rule): the
        # stress checks writes by id, so its skills keep theirs (the rule has its tests).
        auto_ids = getattr(self.catalog, "_auto_ids", None)
        if auto_ids is not None:
            auto_ids.discard(entry_id)
        form.name_edit.setFocus()
        QTest.keyClick(form.name_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(form.name_edit, f"stress {self.typed}")
        form.commit_pending()

    def _open_dialog(self) -> None:
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication, QFileDialog

        if self._stopping:
            return
        self.catalog.commit_all()
        self._in_dialog = True
        self.dialogs += 1

        def cancel() -> None:
            widget = QApplication.activeModalWidget()
            if isinstance(widget, QFileDialog) and widget.isVisible():
                widget.grab()
                widget.reject()
                return
            QTimer.singleShot(20, cancel)

        QTimer.singleShot(50, cancel)
        self.window.open_workspace_dialog()  # runs until cancelled
        self._in_dialog = False
        self._last_beat = time.monotonic()
        self.dialog_timer.start(self.rng.randint(500, 2500))

    def _stop(self) -> None:
        from PySide6.QtCore import QTimer

        self._stopping = True
        self.editor.stop()
        self.dialog_timer.stop()
        self.catalog.commit_all()
        writes = self.writes
        if writes is not None and (writes.busy or self.catalog._held):
            QTimer.singleShot(20, self._stop)
            return
        self.heartbeat.stop()
        self.answer(
            {
                "acknowledged": self.acknowledged,
                "typed": self.typed,
                "errors": self.errors,
                "conflicts": self.conflicts,
                "dialogs": self.dialogs,
                "waited": 0 if writes is None else writes.waited,
                "longest_wait_s": 0.0 if writes is None else round(writes.longest_wait_s, 3),
                "longest_stall_s": round(self.longest_stall_s, 3),
            }
        )


# --- the other programs -----------------------------------------------------------------


@dataclass
class Load:
    """The CLI importing and tagging, and a reader, until `stop()`."""

    workspace: Path
    scratch: Path
    seed: int
    imports: list[list[str]] = field(default_factory=list)
    tags: list[tuple[str, list[str]]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    cli_runs: int = 0
    longest_cli_s: float = 0.0
    reads: int = 0
    read_errors: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        for target in (self._importer, self._tagger):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        self._reader = subprocess.Popen(
            [sys.executable, "-c", READER, str(self.workspace)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        out, _ = self._reader.communicate("")  # its stdin closes: it stops and reports
        report = json.loads(out)
        self.reads, self.read_errors = report["reads"], report["errors"]

    def _cli(self, *args: str) -> bool:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "axmem_gui.cli.main", *args], capture_output=True, text=True
        )
        with self._lock:
            self.cli_runs += 1
            self.longest_cli_s = max(self.longest_cli_s, time.monotonic() - started)
            if done.returncode != 0:
                self.failures.append(done.stderr.strip())
        return done.returncode == 0

    def _importer(self) -> None:
        rng = random.Random(self.seed)
        n = 0
        while not self._stop.is_set():
            n += 1
            size = 2000 if n % 4 == 0 else 200  # now and then one that holds the lock long
            ids = [f"cli-{n}-{i}" for i in range(size)]
            source = self.scratch / f"import-{n}.json"
            skills = [{"id": i, "name": i, "content": f"imported {rng.random()}"} for i in ids]
            source.write_text(json.dumps({"skills": skills}), encoding="utf-8")
            if self._cli("import", "--workspace", str(self.workspace), str(source)):
                with self._lock:
                    self.imports.append(ids)

    def _tagger(self) -> None:
        rng = random.Random(self.seed + 1)
        n = 0
        while not self._stop.is_set():
            n += 1
            with self._lock:
                pool = [i for batch in self.imports for i in batch[:50]]
            if not pool:
                pool = ["release-checklist"]
            ids = rng.sample(pool, min(len(pool), 20))
            tag = f"t{n}"
            args = ("catalog", "tag", "--workspace", str(self.workspace), "add", tag, "skills")
            if self._cli(*args, *ids):
                with self._lock:
                    self.tags.append((tag, ids))


#: A reader as scripts read: a query, then a short pause (it waits on its stdin, which
#: closes when the test is done), not a loop that keeps a CPU to itself.
READER = r"""
import json, sqlite3, sys, threading
path = sys.argv[1]
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
reads, errors = 0, []
conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
while not done.wait(0.002):
    try:
        conn.execute("SELECT count(*), max(pk) FROM skills").fetchone()
        conn.execute("SELECT entry_id, after FROM revisions ORDER BY pk DESC LIMIT 100").fetchall()
        reads += 1
    except sqlite3.Error as exc:
        errors.append(str(exc))
conn.close()
print(json.dumps({"reads": reads, "errors": errors[:20]}))
"""

_WAITED = re.compile(r"waited (\d+(?:\.\d+)?) s")


def failed_after_the_bound(message: str, bound_s: float) -> bool:
    """A refusal the user may see: another program kept the lock longer than we wait."""
    found = _WAITED.search(message)
    return found is not None and float(found.group(1)) >= bound_s * 0.95


def verify(workspace: Path, app: dict[str, Any], load: Load) -> list[str]:
    """What is wrong with the file afterwards (empty: every acknowledged write is in it,
    in its current values and in the history, and the file is whole)."""
    problems: list[str] = []
    conn = sqlite3.connect(f"{workspace.resolve().as_uri()}?mode=ro", uri=True)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            problems.append(f"integrity_check: {check}")
        names: dict[str, set[str]] = {}
        for entry_id, after in conn.execute(
            "SELECT entry_id, after FROM revisions WHERE kind = 'skill' OR kind = 'skills'"
        ):
            if after:
                names.setdefault(entry_id, set()).add(json.loads(after).get("name", ""))
        current = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT id, name, tags FROM skills")}
    finally:
        conn.close()
    for entry_id, values in app["acknowledged"].items():
        missing = [v for v in values if v not in names.get(entry_id, set())]
        if missing:
            problems.append(f"app edits of {entry_id} not in history: {missing[:3]}")
        if entry_id not in current or current[entry_id][0] != values[-1]:
            found = current.get(entry_id)
            problems.append(f"{entry_id}: last acknowledged {values[-1]!r}, file has {found}")
    for ids in load.imports:
        lost = [i for i in ids if i not in current or i not in names]
        if lost:
            problems.append(f"imported skills lost: {lost[:3]} (+{len(lost) - 3})")
    for tag, ids in load.tags:
        untagged = [i for i in ids if i in current and tag not in json.loads(current[i][1])]
        if untagged:
            problems.append(f"tag {tag} lost on {untagged[:3]}")
    return problems
