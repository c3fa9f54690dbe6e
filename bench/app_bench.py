#!/usr/bin/env python3
"""The desktop app on a big workspace, driven as a user would (offscreen Qt).

Generates (seeded, cached under build/app-bench/) a workspace of the sample plus synthetic
skills and memories (10,000 and 100,000 in all by default), starts the real app in a fresh
process, and drives its main window through these steps, printing each figure and the
longest GUI-thread stall during the step (a 2 ms heartbeat timer on the GUI thread: the
longest gap between two ticks, i.e. the longest frame a user would have seen frozen):

    process start → first paint                          target ≤ 800 ms
    first paint → search index ready, preview filled      target ≤ 3,000 ms
    first paint → all background jobs (index, lint) done  target ≤ 10,000 ms
    retrieval bench: recall, 2 strings                    target ≤ 50 ms
    retrieval bench: discover, 1 string                   target ≤ 20 ms
    lint of the catalog (a full run; then one edit)       target ≤ 5,000 ms
    memories list: scroll to the bottom                   target: no frame over 50 ms
    skills filter, per keystroke                          target ≤ 50 ms
    select a skill (form + markdown preview)              target ≤ 100 ms
    description edit → preview recomputed (after the      target ≤ 150 ms
      form's and the index's debounce)
    description keystroke                                 target ≤ 16 ms
    memories filter, per keystroke ("kubernetes")         target ≤ 50 ms
    skills list: Ctrl+End to the true last row            target ≤ 100 ms
    first visit of Sessions, of Evals (navigator click)   target: no stall over 100 ms
    memory (RSS) peak                                     target ≤ 600 MB

With `--session-import MB` (off by default: it adds seconds) a last step imports a session
file of about MB megabytes (the sample's recorded session, its catalog grown with synthetic
memories) through the Sessions page, and times it to the list refreshed with the longest
GUI-thread stall meanwhile (the import runs on the task runner: reading, parsing, checking
what the file claims, storing).

Then the same on the sample workspace. `--json` prints {"skills", "memories",
"first_paint_ms", "index_ready_ms", "rss_peak_mb", "steps": [{"name", "ms",
"max_stall_ms", ...}], "sample": {same for the sample}}.

    python bench/app_bench.py [--skills 10000] [--memories 100000] [--seed 7] [--json]
        [--no-sample] [--timeout 900] [--session-import 20]
    python bench/app_bench.py --start-only [--repeat 3]   # only start → first paint
    python bench/app_bench.py --gc-policy noretire   # another collection policy
                                                     # (bench/gc_policies.py)

Environment: APP_BENCH_TRACE_JOBS=1 prints each task-runner job (start, end, CPU);
APP_BENCH_PROFILE_GUI=1 prints a profile of the GUI thread from first paint to index ready;
APP_BENCH_GC_CENSUS=1 prints, before the scroll, what the cyclic collector walks (tracked
objects by type) and the CPU time of a full collection;
APP_BENCH_LONG_C=N prints each C call of a job that held the GIL over N ms of CPU;
APP_BENCH_GAPS=1 prints each GUI-thread gap over 50 ms (and the GUI thread's CPU in it);
APP_BENCH_STALL_STACKS=1 prints where the GUI thread was during each stall over 150 ms
(APP_BENCH_STALL_MS=N to change the threshold), and where the workers were after the GIL
was held that long.

A benchmark, not a test: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = ROOT / "build" / "app-bench"

TARGETS: dict[str, float] = {
    "start_to_first_paint": 800,
    "paint_to_index_ready": 3000,
    "paint_to_background_done": 10_000,
    "bench_recall_2_strings": 50,
    "bench_discover_1_string": 20,
    "lint_catalog": 5000,
    "lint_after_one_edit": 5000,
    "memories_scroll_to_bottom": 50,  # the longest frame
    "skills_filter_per_keystroke": 50,
    "select_skill": 100,
    "description_edit_to_preview": 150,
    "description_keystroke": 16,
    "rss_peak_mb": 600,
    "memories_filter_per_keystroke": 50,
    "skills_ctrl_end": 100,
    "first_visit_sessions": 100,  # the longest frame
    "first_visit_evals": 100,  # the longest frame
}
#: The collection policies `--gc-policy` offers: the app's own and bench/gc_policies.py's.
GC_POLICIES = ("current", "defaults", "idle", "none", "noretire")
#: Steps whose target bounds the longest frame rather than the step's duration.
FRAME_TARGETS = {"memories_scroll_to_bottom", "first_visit_sessions", "first_visit_evals"}


# --------------------------------------------------------------------------- workspace


def workspace_path(skills: int, memories: int, seed: int) -> Path:
    return CACHE / f"ws-s{skills}-m{memories}-seed{seed}.axmem"


def sample_path() -> Path:
    return CACHE / "sample.axmem"


def build_workspace(path: Path, skills: int, memories: int, seed: int) -> None:
    """The sample catalog (scenarios, suites) plus seeded synthetic entries up to the
    counts asked for (search_bench's generator: Zipf-like words)."""
    sys.path.insert(0, str(HERE))
    from search_bench import Generator

    from axmem_gui.services.store_access import store_of
    from axmem_gui.services.workspace import init_workspace

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    for leftover in (tmp, Path(str(tmp) + "-wal"), Path(str(tmp) + "-shm")):
        leftover.unlink(missing_ok=True)
    opened = init_workspace(tmp, sample=True)
    ws = store_of(opened)  # generating: below the services, straight into the store
    gen = Generator(seed)
    with ws.transaction():
        for skill in gen.skills(max(0, skills - ws.skills.count())):
            ws.skills.upsert(skill)
        for memory in gen.memories(max(0, memories - ws.memories.count())):
            ws.memories.upsert(memory)
    opened.close()
    tmp.rename(path)


def ensure_workspace(skills: int, memories: int, seed: int) -> Path:
    path = workspace_path(skills, memories, seed)
    if not path.exists():
        started = time.perf_counter()
        build_workspace(path, skills, memories, seed)
        print(
            f"generated {path.name} in {time.perf_counter() - started:.1f} s", file=sys.stderr
        )
    return path


def ensure_sample() -> Path:
    path = sample_path()
    if not path.exists():
        from axmem_gui.services.workspace import init_workspace

        path.parent.mkdir(parents=True, exist_ok=True)
        init_workspace(path, sample=True).close()
    return path


# --------------------------------------------------------------------------- parent


def run_child(workspace: Path, timeout_s: float, warm_up: bool = True) -> dict[str, Any]:
    """Start the app in a fresh process (start-up cost counts) and collect its figures."""
    with tempfile.TemporaryDirectory(prefix="axmem-app-bench-") as tmp:
        out = Path(tmp) / "result.json"
        # A copy per run: the bench edits a skill, the cached workspace stays as generated.
        copy = Path(tmp) / workspace.name
        shutil.copyfile(workspace, copy)
        env = dict(os.environ)
        # --x11: the xcb platform on the X server real_x started (DISPLAY is set then)
        env["QT_QPA_PLATFORM"] = "xcb" if os.environ.get("APP_BENCH_X11") else "offscreen"
        env["AXMEM_SETTINGS_DIR"] = str(Path(tmp) / "settings")
        # As installed: compiled modules are cached (a first start writes them).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if warm_up:
            subprocess.run(
                [sys.executable, "-m", "axmem_gui", str(copy), "--self-test"],
                env=env, cwd=tmp, check=False, capture_output=True,
            )
        env["APP_BENCH_T0"] = repr(time.monotonic())
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(copy),
             "--out", str(out), "--timeout", str(timeout_s)],
            env=env,
            cwd=tmp,
            check=False,
        )
        if not out.exists():
            raise SystemExit(f"app_bench: the app process failed (exit {proc.returncode})")
        result: dict[str, Any] = json.loads(out.read_text("utf-8"))
        return result


def print_table(title: str, report: dict[str, Any]) -> None:
    print(f"\n{title}: {report['skills']:,} skills, {report['memories']:,} memories")
    print(f"  {'step':<30} {'ms':>10} {'max stall':>10} {'target':>8}  ")
    for step in report["steps"]:
        name = step["name"]
        value = step.get("ms")
        shown = "timeout" if value is None else f"{value:,.1f}"
        if name == "rss_peak_mb":
            shown = f"{step['mb']:,.0f} MB"
        stall = step.get("max_stall_ms")
        target = TARGETS.get(name)
        measure = stall if name in FRAME_TARGETS else value
        verdict = ""
        if target is not None and measure is not None:
            verdict = "ok" if measure <= target else "OVER"
        extra = {k: v for k, v in step.items() if k not in ("name", "ms", "max_stall_ms")}
        stall_text = "" if stall is None else f"{stall:,.1f}"
        print(
            f"  {name:<30} {shown:>10} {stall_text:>10} {target or '':>8}  {verdict}"
            + (f"  {extra}" if extra else "")
        )
    print(f"  RSS peak {report['rss_peak_mb']:.0f} MB (target ≤ 600)"
          f" · GUI stalls over 100 ms: {report['stalls_over_100ms']}"
          f" · over 50 ms: {report['stalls_over_50ms']}")
    if report.get("gc"):
        print(f"  GC: {report['gc']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-sample", action="store_true", help="skip the sample workspace")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds any one wait may take before the step reads 'timeout'")
    parser.add_argument("--stall-stacks", action="store_true",
                        help="print the GUI thread's stack during every stall over 150 ms")
    parser.add_argument("--start-only", action="store_true",
                        help="measure only process start → first paint, --repeat times each")
    parser.add_argument("--repeat", type=int, default=3,
                        help="with --start-only: runs per workspace (the median is printed)")
    parser.add_argument("--session-import", type=float, default=0.0, metavar="MB",
                        help="also time importing a session file of about MB megabytes")
    parser.add_argument("--cold-visits", action="store_true",
                        help="only open Sessions and Evals right after the first paint "
                             "(before the idle warm-up prepares them)")
    parser.add_argument("--x11", action="store_true",
                        help="a real X server (Xvfb, 1366x768, started once for the whole "
                             "bench unless DISPLAY is set) instead of offscreen Qt")
    parser.add_argument("--gc-policy", choices=GC_POLICIES,
                        default="current",
                        help="the collection policy to run the app with (bench/gc_policies.py)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        return child_main(args.child, args.out, args.timeout)
    if args.x11:
        with real_x():
            return _bench(args)
    return _bench(args)


@contextlib.contextmanager
def real_x() -> Iterator[str]:
    """An X server for the children: DISPLAY's, or a private Xvfb at 1366x768 started
    here (its start-up is not counted: the children start once it answers)."""
    os.environ["APP_BENCH_X11"] = "1"
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
        pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(write)
    with os.fdopen(read) as fd:
        number = fd.readline().strip()  # written once the server accepts clients
    if not number:
        server.kill()
        raise SystemExit("app_bench: Xvfb did not start (is it installed? apt install xvfb)")
    os.environ["DISPLAY"] = f":{number}"
    try:
        yield os.environ["DISPLAY"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def _bench(args: argparse.Namespace) -> int:
    if args.stall_stacks:
        os.environ["APP_BENCH_STALL_STACKS"] = "1"
    if args.cold_visits:
        os.environ["APP_BENCH_COLD_VISITS"] = "1"
    os.environ["AXMEM_BENCH_GC_POLICY"] = args.gc_policy
    if args.session_import > 0:
        os.environ["APP_BENCH_SESSION_IMPORT_MB"] = repr(args.session_import)

    ws = ensure_workspace(args.skills, args.memories, args.seed)
    if args.start_only:
        return start_only(ws, args)
    report = run_child(ws, args.timeout)
    if not args.no_sample:
        report["sample"] = run_child(ensure_sample(), args.timeout)
    if args.json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        print_table("generated workspace", report)
        if "sample" in report:
            print_table("sample workspace", report["sample"])
    return 0


def start_only(ws: Path, args: argparse.Namespace) -> int:
    """Process start → first paint only, `--repeat` fresh processes per workspace."""
    import statistics

    os.environ["APP_BENCH_START_ONLY"] = "1"
    workspaces = [("generated", ws)] + ([] if args.no_sample else [("sample", ensure_sample())])
    report: dict[str, Any] = {}
    for name, path in workspaces:
        runs = [run_child(path, args.timeout)["first_paint_ms"] for _ in range(args.repeat)]
        report[name] = {"first_paint_ms": runs, "median_ms": statistics.median(runs)}
    load = os.getloadavg()
    report["load_average"] = [round(x, 2) for x in load]
    if args.json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        for name, _ in workspaces:
            figures = report[name]
            runs_text = ", ".join(f"{ms:,.0f}" for ms in figures["first_paint_ms"])
            print(f"{name}: start → first paint median {figures['median_ms']:,.0f} ms"
                  f" (runs {runs_text}; target ≤ {TARGETS['start_to_first_paint']:.0f})")
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


class GcProbe:
    """Times every cyclic collection (gc callbacks): on the GUI thread (a stall the user
    sees: wall time, and the GUI thread's own CPU time, which leaves out waiting for the
    GIL or a CPU) and elsewhere (counted). Reported as `gc` in the JSON."""

    def __init__(self) -> None:
        import gc
        import threading

        self._gui = threading.get_ident()
        self._ident = threading.get_ident
        self._started = 0.0
        self._cpu = 0.0
        self.gui: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.cpu: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.elsewhere = 0
        #: (when it ended, generation, wall ms) of each GUI-thread collection
        self.log: list[tuple[float, int, float]] = []
        gc.callbacks.insert(0, self._on_gc)
        # Last: so the wall time covers the other callbacks (the app's collector's) too.
        gc.callbacks.append(self._on_gc_last)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if self._ident() != self._gui:
            self.elsewhere += phase == "start"
        elif phase == "start":
            self._started = time.perf_counter()
        else:
            now = time.perf_counter()
            ms = (now - self._started) * 1000
            self.gui[info["generation"]].append(ms)
            self.log.append((now, info["generation"], ms))

    def longest_since(self, since: float) -> list[float] | None:
        """[generation, ms] of the longest GUI-thread collection that ended after `since`."""
        found = [(ms, gen) for when, gen, ms in self.log if when >= since]
        if not found:
            return None
        ms, gen = max(found)
        return [gen, round(ms, 1)]

    def _on_gc_last(self, phase: str, info: dict[str, int]) -> None:
        if self._ident() != self._gui:
            return
        if phase == "start":
            self._cpu = time.thread_time()
        else:
            self.cpu[info["generation"]].append((time.thread_time() - self._cpu) * 1000)

    def report(self) -> dict[str, Any]:
        every = [ms for times in self.gui.values() for ms in times]
        return {
            "gui_max_ms": round(max(every, default=0.0), 1),
            "gui_total_ms": round(sum(every), 1),
            "gui_over_50ms": sum(ms > 50 for ms in every),
            "gui_over_30ms": sum(ms > 30 for ms in every),
            "gui_by_generation": {
                str(gen): {
                    "count": len(times),
                    "max_ms": round(max(times, default=0.0), 1),
                    "max_cpu_ms": round(max(self.cpu[gen], default=0.0), 1),
                }
                for gen, times in self.gui.items()
            },
            "collections_off_gui_thread": self.elsewhere,
        }


GC_PROBE: GcProbe | None = None


# --------------------------------------------------------------------------- child


def child_main(workspace: Path, out: Path, timeout_s: float) -> int:
    """Runs in the app's process: the app's own `main`, with a driver started at the
    window's first paint."""
    t0 = float(os.environ["APP_BENCH_T0"])
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(["axmem-gui"])
    global GC_PROBE
    GC_PROBE = GcProbe()
    state: dict[str, Any] = {}

    class FirstPaint(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if (
                "paint" not in state
                and event.type() == QEvent.Type.Paint
                and isinstance(watched, QMainWindow)
            ):
                state["paint"] = time.monotonic()
                state["window"] = watched
                app.removeEventFilter(self)
                QTimer.singleShot(0, lambda: start(watched))
            return False

    def start(window: QMainWindow) -> None:
        # Kept in `state`: the driver's timers live as long as the driver does.
        state["driver"] = Driver(app, window, t0, state, out, timeout_s)

    watcher = FirstPaint()
    app.installEventFilter(watcher)
    if os.environ.get("APP_BENCH_TRACE_JOBS"):
        _trace_jobs(t0)
    if os.environ.get("APP_BENCH_LONG_C"):
        _trace_long_c_calls(float(os.environ["APP_BENCH_LONG_C"]))
    sys.path.insert(0, str(HERE))
    import gc_policies

    # Before the app's modules import `COLLECTOR` from ui/collector.py.
    gc_policies.install(os.environ.get("AXMEM_BENCH_GC_POLICY", "current"))
    from axmem_gui.app import main as app_main

    code = app_main([str(workspace)])
    if not out.exists():
        print(f"app_bench: the app exited ({code}) before the driver finished", file=sys.stderr)
        return 1
    return 0


def _trace_jobs(t0: float) -> None:
    """Print every task-runner job as it ends: what it was, when it started and ended
    (ms since process start) and the CPU time its thread spent on it."""
    import threading

    from axmem_gui.ui import tasks

    original = tasks._outcome

    def traced(ticket: Any) -> tuple[str, object]:
        job = ticket.job
        name = getattr(job, "__qualname__", repr(job))
        started, cpu = time.monotonic(), time.thread_time()
        try:
            return original(ticket)
        finally:
            print(
                f"  job {name} [{threading.current_thread().name}]: "
                f"{(started - t0) * 1000:,.0f} → {(time.monotonic() - t0) * 1000:,.0f} ms, "
                f"cpu {(time.thread_time() - cpu) * 1000:,.0f} ms",
                file=sys.stderr, flush=True,
            )

    tasks._outcome = traced


def _trace_long_c_calls(threshold_ms: float) -> None:
    """Print every call of a C function in a task-runner job that took more than
    `threshold_ms` of its thread's CPU time without calling back into Python: CPython
    switches threads only between bytecodes, so the GUI thread may wait that long for the
    GIL (unless the function releases it, as sqlite3's statements and I/O do). A
    diagnostic: it slows jobs down."""
    from axmem_gui.ui import tasks

    original = tasks._outcome
    limit = threshold_ms / 1000

    def traced(ticket: Any) -> tuple[str, object]:
        open_calls: list[list[Any]] = []  # [start, function, frame, python inside]

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event == "c_call":
                open_calls.append([time.thread_time(), arg, frame, False])
            elif event in ("c_return", "c_exception"):
                if open_calls:
                    start, fn, at, inside = open_calls.pop()
                    if inside and open_calls:
                        open_calls[-1][3] = True
                    ms = time.thread_time() - start
                    if not inside and ms > limit:
                        name = getattr(fn, "__qualname__", repr(fn))
                        print(f"--- long C call {ms * 1000:.0f} ms: {name} at "
                              f"{at.f_code.co_filename}:{at.f_lineno} ({at.f_code.co_name})",
                              file=sys.stderr, flush=True)
            elif event == "call" and open_calls:
                open_calls[-1][3] = True

        sys.setprofile(profile)
        try:
            return original(ticket)
        finally:
            sys.setprofile(None)

    tasks._outcome = traced


class Driver:
    """Walks the steps as a generator; every `yield` gives the event loop a turn."""

    def __init__(
        self, app: Any, window: Any, t0: float, state: dict[str, Any], out: Path,
        timeout_s: float,
    ) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.app, self.window, self.t0, self.state, self.out = app, window, t0, state, out
        self.timeout_s = timeout_s
        self.steps: list[dict[str, Any]] = []
        self.gaps_over_100 = 0
        self.gaps_over_50 = 0
        self._last_tick = time.perf_counter()
        self._last_cpu = time.thread_time()
        self._max_gap = 0.0
        self._step_gaps = [0, 0]  # over 50 ms, over 100 ms, since the last step
        self._step_start = time.perf_counter()
        self._gui_cpu = time.thread_time()
        self._last_busy = time.perf_counter()  # the last heartbeat over 10 ms late
        self._print_gaps = bool(
            os.environ.get("APP_BENCH_STALL_STACKS") or os.environ.get("APP_BENCH_GAPS")
        )
        self.heartbeat = QTimer()
        self.heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
        self.heartbeat.setInterval(2)
        self.heartbeat.timeout.connect(self._tick)
        self.heartbeat.start()
        if os.environ.get("APP_BENCH_STALL_STACKS"):
            self._start_watchdog()
        self._poll = QTimer()
        self._poll.setSingleShot(True)
        self._poll.timeout.connect(self._advance)
        self._wait: Any = None
        self._wait_until = 0.0
        self.timed_out = False
        self._gen = self.run()
        self._advance()

    # heartbeat ----------------------------------------------------------------------
    def _tick(self) -> None:
        now = time.perf_counter()
        gap = (now - self._last_tick) * 1000
        self._last_tick = now
        cpu = time.thread_time()
        busy = (cpu - self._last_cpu) * 1000  # what the GUI thread computed meanwhile
        self._last_cpu = cpu
        self._max_gap = max(self._max_gap, gap)
        if gap > 10:
            self._last_busy = now
        if gap > 100:
            self.gaps_over_100 += 1
            self._step_gaps[1] += 1
        if gap > 50:
            self.gaps_over_50 += 1
            self._step_gaps[0] += 1
            if self._print_gaps:
                at = (time.monotonic() - self.t0) * 1000
                print(f"--- gap {gap:.0f} ms ending at {at:,.0f} ms (GUI thread CPU {busy:.0f} ms)",
                      file=sys.stderr, flush=True)

    def _start_watchdog(self) -> None:
        """A thread that prints where the GUI thread is whenever the heartbeat is late."""
        import threading
        import traceback

        main_id = threading.main_thread().ident
        threshold = float(os.environ.get("APP_BENCH_STALL_MS") or 150) / 1000

        def watch() -> None:
            reported = 0.0
            while True:
                time.sleep(0.01)
                late = time.perf_counter() - self._last_tick
                if late > threshold and self._last_tick != reported:
                    reported = self._last_tick
                    frame = sys._current_frames().get(main_id or 0)
                    stack = "".join(traceback.format_stack(frame, limit=24)) if frame else ""
                    print(f"--- GUI thread {late * 1000:.0f} ms late"
                          f" (at {(time.monotonic() - self.t0) * 1000:,.0f} ms) in:\n{stack}",
                          file=sys.stderr, flush=True)

        def gil_watch() -> None:
            # This thread wakes every 2 ms; when it wakes late, some thread held the GIL
            # (one long C call): print where the other threads are just after it.
            me = threading.get_ident()
            while True:
                before = time.perf_counter()
                time.sleep(0.002)
                late = time.perf_counter() - before - 0.002
                if late > threshold:
                    frames = sys._current_frames()
                    names = {t.ident: t.name for t in threading.enumerate()}
                    text = []
                    for ident, frame in frames.items():
                        if ident in (me, main_id):
                            continue
                        stack = "".join(traceback.format_stack(frame, limit=6))
                        text.append(f"  [{names.get(ident, ident)}]\n{stack}")
                    print(f"--- GIL held {late * 1000:.0f} ms"
                          f" (at {(time.monotonic() - self.t0) * 1000:,.0f} ms); workers:\n"
                          + "".join(text), file=sys.stderr, flush=True)

        threading.Thread(target=watch, daemon=True).start()
        threading.Thread(target=gil_watch, daemon=True).start()

    def stall_reset(self) -> None:
        self._step_start = self._last_tick = time.perf_counter()
        self._max_gap = 0.0
        self._step_gaps = [0, 0]
        self._gui_cpu = time.thread_time()  # the driver runs on the GUI thread

    def stall(self) -> float:
        # The gap still open counts too (the step may end inside a long frame).
        self._tick()
        return round(self._max_gap, 1)

    # scheduling ---------------------------------------------------------------------
    def _advance(self) -> None:
        if self._wait is not None:
            if not self._wait() and time.perf_counter() < self._wait_until:
                self._poll.start(1)
                return
            if not self._wait():
                self.timed_out = True
            self._wait = None
        try:
            wanted = next(self._gen)
        except StopIteration:
            return
        except Exception:  # report what was measured, and end the app
            import traceback

            traceback.print_exc()
            self.finish()
            return
        if callable(wanted):
            self._wait = wanted
            self._wait_until = time.perf_counter() + self.timeout_s
            self.timed_out = False
        self._poll.start(0)

    def record(self, name: str, ms: float | None, stall: float | None, **extra: Any) -> None:
        step: dict[str, Any] = {
            "name": name,
            "ms": None if ms is None else round(ms, 1),
            "max_stall_ms": stall,
            # GUI-thread gaps over 50 and over 100 ms since the last step (or reset)
            "stalls_over_50ms": self._step_gaps[0],
            "stalls_over_100ms": self._step_gaps[1],
            # CPU time the GUI thread spent since the last step (or reset)
            "gui_cpu_ms": round((time.thread_time() - self._gui_cpu) * 1000, 1),
        }
        self._step_gaps = [0, 0]
        self._gui_cpu = time.thread_time()
        if GC_PROBE is not None:
            # the step's longest GUI-thread collection: [generation, ms]
            step["longest_gc"] = GC_PROBE.longest_since(self._step_start)
        self._step_start = time.perf_counter()
        step.update(extra)
        self.steps.append(step)
        shown = "timeout" if ms is None else f"{ms:,.1f} ms"
        print(f"  {name}: {shown} (longest stall {stall} ms; stalls over 50 / 100 ms:"
              f" {step['stalls_over_50ms']} / {step['stalls_over_100ms']})",
              file=sys.stderr, flush=True)

    # the steps ----------------------------------------------------------------------
    def run(self) -> Any:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        window = self.window
        paint = self.state["paint"]
        self.record("start_to_first_paint", (paint - self.t0) * 1000, None)
        if os.environ.get("APP_BENCH_COLD_VISITS"):
            # right after the first paint: before the idle warm-up prepares the pages
            yield from self.first_visits()
            self.finish()
            return
        if os.environ.get("APP_BENCH_START_ONLY"):
            self.finish()
            return
        from types import SimpleNamespace

        from axmem_gui.ui.bench.feature import BENCH
        from axmem_gui.ui.catalog.feature import CATALOG
        from axmem_gui.ui.lint.install import LINT
        from axmem_gui.ui.preview.install import PREVIEW
        from axmem_gui.ui.retrieval.feature import RETRIEVAL

        views = SimpleNamespace(
            state=window.feature(RETRIEVAL).state,
            preview=window.feature(PREVIEW).panel,
            bench=window.feature(BENCH).panel,
        )
        pages = window.feature(CATALOG).pages
        linter = window.feature(LINT).linter
        runner = window.task_runner

        # index ready and preview filled -------------------------------------------
        self.stall_reset()

        def preview_filled() -> bool:
            preview = views.preview
            return bool(
                views.state.ready
                and preview.preview is not None
                and not preview.pending
                and preview.section_text("skills")
            )

        profiler = None
        if os.environ.get("APP_BENCH_PROFILE_GUI"):
            import cProfile

            profiler = cProfile.Profile()  # of this thread, the GUI thread, only
            profiler.enable()
        yield preview_filled
        index_ready = None if self.timed_out else (time.monotonic() - paint) * 1000
        away = views.state.live.last_offload
        # the part of the index built by another process meanwhile (None: none was)
        offload = away and {
            "domain": away.domain,
            "from": away.cut,
            "built_here_instead": away.fell_back,
            "error": away.job.error,
            **away.job.stats,  # the child's CPU and peak memory
        }
        self.record("paint_to_index_ready", index_ready, self.stall(), offload=offload)
        if away is not None and away.job.stats.get("peak_rss_kb"):
            import resource

            # this process's peak so far plus the worker's: the most both held at once
            ours = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            both = ours + float(away.job.stats["peak_rss_kb"] or 0)
            self.state["with_worker_mb"] = round(both / 1024, 1)
        if profiler is not None:
            import pstats

            profiler.disable()
            print("--- GUI thread, first paint → index ready:", file=sys.stderr)
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)

        def background_done() -> bool:
            return bool(
                views.state.ready
                and not views.state.pending
                and linter.outcome is not None
                and not linter.running
                and not runner.busy
            )

        yield background_done
        done = None if self.timed_out else (time.monotonic() - paint) * 1000
        self.record("paint_to_background_done", done, self.stall())
        self.state["index_ready_ms"] = index_ready
        self.state["background_done_ms"] = done

        # the retrieval bench -------------------------------------------------------
        # A user's first search comes after the window has settled: on the sample the
        # background is done ~70 ms after the first paint, while Qt still lays out and
        # paints the docks for the first time (no frame late by 10 ms for 200 ms).
        yield lambda: time.perf_counter() - self._last_busy > 0.2
        bench = views.bench
        live = views.state.live
        memory_words = _words(live, "memories", 2)
        skill_words = _words(live, "skills", 1)
        for name, kind, searches in (
            ("bench_recall_2_strings", "recall", memory_words),
            ("bench_discover_1_string", "discover", skill_words),
        ):
            bench.set_kind(kind)
            bench.set_searches(searches)
            yield None
            self.stall_reset()
            started = time.perf_counter()
            bench.run()

            def bench_done(want: tuple[str, ...] = tuple(searches), k: str = kind) -> bool:
                result = bench.result
                return bool(result is not None and result.searches == want and result.kind == k)

            yield bench_done
            ms = None if self.timed_out else (time.perf_counter() - started) * 1000
            rows = len(bench.result.rows) if bench.result is not None else 0
            # BM25's column: its FTS5 index is built on first use (on the task runner).
            yield lambda: not getattr(bench, "bm25_pending", False)
            bm25_ms = None if self.timed_out else (time.perf_counter() - started) * 1000
            first_stall = self.stall()
            self.stall_reset()
            warm_started = time.perf_counter()
            bench.run()
            yield bench_done
            warm = (time.perf_counter() - warm_started) * 1000
            # the warm run's BM25 call (on the task runner) fills its column after
            yield lambda: not getattr(bench, "bm25_pending", False)
            self.record(
                name, ms, max(first_stall, self.stall()), returned=rows,
                bm25_rows=len(bench.result.bm25_rows) if bench.result else 0,
                bm25_filled_ms=None if bm25_ms is None else round(bm25_ms, 1),
                warm_run_ms=round(warm, 1),
            )

        # lint: the first run (a full one, started at paint) -----------------------
        first = linter.outcome
        self.record(
            "lint_catalog",
            None if first is None else first.seconds * 1000,
            None,
            findings=0 if first is None else len(first.report.findings),
            note="the first (full) lint job's own time; stalls: see background_done",
        )

        # memories: scroll to the bottom --------------------------------------------
        if os.environ.get("APP_BENCH_GC_CENSUS"):
            _gc_census()
        window.show_section("memories")
        yield None
        page = pages["memories"]
        table = page.table
        bar = table.verticalScrollBar()
        self.stall_reset()
        started = time.perf_counter()
        frames = 0

        def at_bottom() -> bool:
            model = page.model
            # The model has a row per entry and reads a page where it is shown (keyset):
            # at the bottom when the bar is and the last row has been read.
            last = model.total() - 1
            return bool(
                bar.value() == bar.maximum()
                and model.rowCount() >= model.total()
                and any(row == last for row, _id in model.loaded()[-64:])
            )

        # As a user goes to the end of a list: Ctrl+End, through the window (so the app
        # sees the input), once per frame; the view fetches a page at the bottom.
        table.setFocus()
        table.setCurrentIndex(page.model.index(0, 0))
        handle = window.windowHandle()
        deadline = started + self.timeout_s
        while not at_bottom() and time.perf_counter() < deadline:
            if handle is not None and table.hasFocus():
                QTest.keyClick(handle, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
            else:  # (no native window or no focus: scroll it directly)
                bar.setValue(bar.maximum())
            frames += 1
            yield None
        ms = (time.perf_counter() - started) * 1000 if at_bottom() else None
        self.record(
            "memories_scroll_to_bottom", ms, self.stall(), frames=frames,
            rows=page.model.rowCount(),
        )

        # skills: filter per keystroke ----------------------------------------------
        window.show_section("skills")
        yield None
        page = pages["skills"]
        page.filter_edit.setFocus()
        word = skill_words[0].split()[0][:4]
        keys: list[float] = []
        self.stall_reset()
        for key in [*word, "\b" * len(word)]:
            for ch in key:
                started = time.perf_counter()
                if ch == "\b":
                    QTest.keyClick(page.filter_edit, Qt.Key.Key_Backspace)
                else:
                    QTest.keyClick(page.filter_edit, ch)
                keys.append((time.perf_counter() - started) * 1000)
                yield None
        self.record(
            "skills_filter_per_keystroke", max(keys), self.stall(),
            keys=len(keys), filter=word,
        )
        yield lambda: page.model.total() == page.model.rowCount() or page.model.rowCount() > 0

        # select a skill ------------------------------------------------------------
        yield background_done
        table = page.table
        row = min(7, page.model.rowCount() - 1)
        target_id = str(page.model.index(row, 0).data())
        self.stall_reset()
        started = time.perf_counter()
        table.selectRow(row)
        yield lambda: page.form.entry is not None and page.form.entry.id == target_id
        ms = (time.perf_counter() - started) * 1000
        yield None
        self.record("select_skill", ms, self.stall(), id=target_id)

        # description edit ----------------------------------------------------------
        yield background_done
        from axmem_gui.ui.editor.form import COMMIT_DELAY_MS
        from axmem_gui.ui.retrieval.state import REFRESH_DEBOUNCE_MS

        form = page.form
        form.description_edit.setFocus()
        form.description_edit.end(False)
        typed = " zebrafinch"
        keys = []
        self.stall_reset()
        preview_updates: list[float] = []
        views.preview.updated.connect(lambda: preview_updates.append(time.perf_counter()))
        lint_before = linter.outcome
        last_key = 0.0
        for ch in typed:
            started = time.perf_counter()
            QTest.keyClicks(form.description_edit, ch)
            # when the debounce timers started again: right after the key, not a frame
            # later (that frame was counted as part of the debounce: 0 ms on the sample)
            last_key = time.perf_counter()
            keys.append((last_key - started) * 1000)
            yield None
        key_stall = self.stall()
        self.stall_reset()

        def previewed() -> bool:
            return "zebrafinch" in views.preview.section_text("skills") and bool(
                preview_updates and preview_updates[-1] > last_key
            )

        yield previewed
        raw = None if self.timed_out else (time.perf_counter() - last_key) * 1000
        debounce = COMMIT_DELAY_MS + REFRESH_DEBOUNCE_MS
        after = None if raw is None else max(0.0, raw - debounce)
        self.record(
            "description_edit_to_preview", after, self.stall(), raw_ms=round(raw or 0, 1),
            debounce_ms=debounce,
        )
        self.record("description_keystroke", max(keys), key_stall, keys=len(keys))
        self.stall_reset()
        yield lambda: linter.outcome is not lint_before and not linter.running
        lint_edit = None if self.timed_out else (time.perf_counter() - last_key) * 1000
        job = linter.outcome.seconds * 1000 if linter.outcome is not None else None
        self.record(
            "lint_after_one_edit", job, self.stall(),
            from_last_key_ms=None if lint_edit is None else round(lint_edit, 1),
            note="the lint job's own time; from_last_key includes the 400 + 300 ms debounces",
        )
        yield background_done
        yield from self.lists_and_first_visits(pages, views)
        if os.environ.get("APP_BENCH_SESSION_IMPORT_MB"):
            yield from self.session_import(float(os.environ["APP_BENCH_SESSION_IMPORT_MB"]))
        self.finish()

    def lists_and_first_visits(self, pages: Any, views: Any) -> Any:
        """Issue #30's measures: the memories filter per keystroke (the keystroke itself,
        then until the list shows the filtered rows), Ctrl+End on the skills list to the
        true last row, and the first visit of the Sessions and Evals pages as a user opens
        them (the navigator: the page is prepared on a job, then built)."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        window = self.window
        window.show_section("memories")
        yield None
        from PySide6.QtWidgets import QLineEdit

        page = pages["memories"]
        model = page.model
        edit = page.filter_edit
        assert isinstance(edit, QLineEdit)
        edit.setFocus()
        # a word of a real memory (many rows match), as long as "kubernetes" if it can be
        words = [w for w in _words(views.state.live, "memories", 3)[0].split() if w.isalpha()]
        word = max(words, key=len, default="kubernetes")
        keys: list[float] = []
        self.stall_reset()
        last_key = time.perf_counter()
        for ch in word:
            started = time.perf_counter()
            QTest.keyClicks(edit, ch)
            last_key = time.perf_counter()
            keys.append((last_key - started) * 1000)
            yield None
        key_stall = self.stall()
        yield lambda: model.filter_text() == word and not model.filtering()
        shown = None if self.timed_out else (time.perf_counter() - last_key) * 1000
        self.record(
            "memories_filter_per_keystroke", max(keys), key_stall, keys=len(keys),
            filter=word, rows=model.total(),
            last_key_to_rows_ms=None if shown is None else round(shown, 1),
        )  # fmt: skip
        page.filter_edit.clear()
        yield lambda: model.filter_text() == "" and not model.filtering()

        window.show_section("skills")
        yield None
        page = pages["skills"]
        table = page.table
        table.setFocus()
        table.setCurrentIndex(page.model.index(0, 0))
        yield None
        self.stall_reset()
        started = time.perf_counter()
        QTest.keyClick(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        last = page.model.total() - 1

        def at_last_row() -> bool:  # (the row read, not only the cursor moved)
            loaded = page.model.loaded()[-64:]
            return table.currentIndex().row() == last and any(r == last for r, _ in loaded)

        yield at_last_row
        ms = None if self.timed_out else (time.perf_counter() - started) * 1000
        self.record(
            "skills_ctrl_end", ms, self.stall(), row=table.currentIndex().row() + 1,
            of=page.model.total(), presses=1,
        )  # fmt: skip

        yield from self.first_visits()

    def first_visits(self) -> Any:
        """Open Sessions, then Evals, as a user does (the navigator): until the page is
        built and shown, with the longest GUI-thread stall meanwhile."""
        window = self.window
        for key in ("sessions", "evals"):
            prepared = window.pages.prepared(key)
            window.show_section("skills")
            yield None
            self.stall_reset()
            started = time.perf_counter()
            window.show_section_row(window.nav_model.row_of(key))
            yield lambda k=key: bool(
                window.pages.built(k) and window.stack.currentWidget() is window.pages[k]
            )
            ms = None if self.timed_out else (time.perf_counter() - started) * 1000
            yield None  # (its first paint)
            self.record(
                f"first_visit_{key}", ms, self.stall(), prepared_before_click=prepared,
                note="prepared_before_click: the idle warm-up had done the page's job",
            )  # fmt: skip

    def session_import(self, mb: float) -> Any:
        """Import a session file of about `mb` MB through the Sessions page."""
        from axmem_gui.ui.sessions.controller import SESSIONS

        window = self.window
        feature = window.feature(SESSIONS)
        window.show_section("sessions")  # the page is built (and its list filled) first
        yield lambda: not feature.jobs and not window.task_runner.busy
        path = Path(self.out).parent / "big.axsession.json"
        size = write_big_session(window.controller.workspace, path, mb)
        yield None
        self.stall_reset()
        started = time.perf_counter()
        feature.import_files([path])
        # (the job's result refreshes the list in the same turn it leaves `jobs`)
        yield lambda: not feature.jobs
        ms = None if self.timed_out else (time.perf_counter() - started) * 1000
        self.record(
            "session_import", ms, self.stall(), mb=round(size / 1e6, 1),
            listed="bench-big-import" in feature.page.model.ids(),
            message=window.statusBar().currentMessage(),
        )

    def finish(self) -> None:
        import resource

        rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        ws = self.window.controller.workspace
        counts = ws.counts()
        report = {
            "skills": counts.skills,
            "memories": counts.memories,
            "first_paint_ms": round((self.state["paint"] - self.t0) * 1000, 1),
            "index_ready_ms": self.state.get("index_ready_ms"),
            "background_done_ms": self.state.get("background_done_ms"),
            "rss_peak_mb": round(rss_kb / 1024, 1),
            "gc_policy": os.environ.get("AXMEM_BENCH_GC_POLICY", "current"),
            "stalls_over_100ms": self.gaps_over_100,
            "stalls_over_50ms": self.gaps_over_50,
            "gc": GC_PROBE.report() if GC_PROBE is not None else None,
            "steps": [
                *self.steps,
                {"name": "rss_peak_mb", "ms": None, "max_stall_ms": None,
                 "mb": round(rss_kb / 1024, 1),
                 # this process's when the index worker had its peak (its own is in
                 # paint_to_index_ready's offload): the two together, at most
                 "with_index_worker_mb": self.state.get("with_worker_mb")},
            ],
        }
        self.out.write_text(json.dumps(report), "utf-8")
        self.heartbeat.stop()
        self.window.close()
        self.app.quit()


def write_big_session(ws: Any, path: Path, mb: float) -> int:
    """The sample's recorded session with its catalog grown by synthetic memories (words
    no recorded search has, so what the file claims still holds) to about `mb` MB."""
    import copy
    import random

    from axmem_gui.core.records import JsonValue
    from axmem_gui.core.session.format import parse_session, session_to_json
    from axmem_gui.services import sessions

    stored = ws.sessions.get("sample-ops-assistant")
    doc = copy.deepcopy(session_to_json(stored))
    r = random.Random(11)
    words = [f"zq{i}x" for i in range(3000)]
    catalog = doc["catalog"]
    assert isinstance(catalog, dict)
    memories = catalog["memories"]
    assert isinstance(memories, list)
    size = len(json.dumps(doc))
    while size < mb * 1e6:
        memory: dict[str, JsonValue] = {"id": f"bench-note-{len(memories):06d}",
                  "content": " ".join(r.choice(words) for _ in range(100))}
        memories.append(memory)
        size += len(json.dumps(memory)) + 2
    doc["id"] = "bench-big-import"
    sessions.write_session_file(parse_session(doc, "bench session"), path)
    return path.stat().st_size


def _gc_census() -> None:
    """What a full collection walks now: tracked objects (frozen ones too) by type, and
    the GUI thread's CPU time of full collections (the first one also untracks what no
    collection had seen yet). Printed to stderr; it changes what the bench measures after."""
    import gc
    from collections import Counter

    frozen = gc.get_freeze_count()
    gc.unfreeze()
    tracked = gc.get_objects()
    kinds = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in tracked)
    print(f"  gc census: {len(tracked):,} tracked objects ({frozen:,} of them frozen)",
          file=sys.stderr)
    for name, n in kinds.most_common(12):
        print(f"    {n:>9,} {name}", file=sys.stderr)
    del tracked
    times = []
    for _ in range(4):
        cpu = time.thread_time()
        gc.collect()
        times.append((time.thread_time() - cpu) * 1000)
    gc.freeze()
    print(f"  full collections, GUI-thread CPU: first {times[0]:.1f} ms, then "
          f"{min(times[1:]):.1f}-{max(times[1:]):.1f} ms; "
          f"{len(gc.get_objects()) + gc.get_freeze_count():,} tracked after",
          file=sys.stderr, flush=True)


def _words(live: Any, domain: str, count: int) -> list[str]:
    """Search strings made of words of real entries (so the calls find something)."""
    ids = live.ids(domain)
    out: list[str] = []
    for i in range(count):
        entry = live.entry(domain, ids[(i * 7919 + 13) % len(ids)])
        text = getattr(entry, "description", "") or entry.content
        out.append(" ".join(text.split()[:3]))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
