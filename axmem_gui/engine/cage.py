"""The cage model-written JavaScript runs in: limits on the QuickJS runtime axllm uses.

A recorded session is a shared file and the code in it is untrusted; so is the code a live
model writes. `CagedQuickJsRuntime` is axllm's `AxQuickJsCodeRuntime` with:

* a CPU-time budget per execution (and for each snapshot of the state after it), enforced
  by QuickJS's interrupt handler, which also polls the run's cancel token: a
  `while (true) {}` ends at the limit, a cancel within the next few thousand instructions;
* a memory limit for the runtime and a maximum JS stack (QuickJS's own checks);
* code larger than a bound refused before QuickJS parses it;
* `JSON.stringify` bounded in depth (cage_js.JSON_GUARD), so a deep object cannot crash
  the process, and axllm's support code without its quadratic costs.

An exceeded limit is a runtime error the model sees as Ax shows a thrown error (TypeScript's
AxJSRuntime restarts its worker after a timeout and says so; here the session is retired and
axllm starts a fresh one for the next execution). The same code under the same limits fails
the same way, so a replay of the run is identical.

What the cage cannot stop from inside: native loops that never poll the interrupt handler
(a catastrophic regular expression, a sort of millions of strings). Only a process boundary
stops those (engine.child_run).

The interrupt handler is installed through ctypes (the `quickjs` wheel's own time limit
forbids every call back into Python, which host callables and llmQuery need). It needs the
`quickjs` 1.19.4 layout; elsewhere the time limit and in-execution cancel are off
(`native_interrupts()` says why) and the other limits still hold.
"""

from __future__ import annotations

import ctypes
import functools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import quickjs
from axllm.runtime_quickjs import _RUNTIME_SUPPORT, AxQuickJsCodeRuntime, AxQuickJsCodeSession

from axmem_gui.core.session.code_limits import CodeLimits
from axmem_gui.engine.cage_js import CLOCK_SHIM, JSON_GUARD, patched_support
from axmem_gui.engine.clients import CancelLike, is_cancelled
from axmem_gui.engine.errors import RunCancelled

MIB = 1024 * 1024
KIB = 1024

#: What the model sees after a limit stopped its code (TypeScript Ax's words: its runtime is
#: restarted after a timeout, and so is this one).
RESTART_NOTICE = (
    "[The JavaScript runtime was restarted; all global state was lost and must be recreated "
    "if needed.]"
)


class CodeLimitHit(BaseException):
    """Raised out of the QuickJS context once a limit stopped the code. A BaseException,
    so axllm's own `except Exception` around its evaluations lets it through."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


# ------------------------------------------------------------------ native ---

_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
#: The wheel whose Context layout (PyObject header, then JSRuntime *, then JSContext *)
#: `_runtime_pointer` reads.
_QUICKJS_LAYOUT = ("1.19.4", 80)


@dataclass(frozen=True)
class _Native:
    set_interrupt_handler: Any
    get_runtime_opaque: Any
    get_runtime: Any


@functools.cache
def _native() -> _Native | str:
    """The QuickJS entry points, or why they are unavailable."""
    from importlib.metadata import version

    import _quickjs

    found = (version("quickjs"), _quickjs.Context.__basicsize__)
    if found != _QUICKJS_LAYOUT:
        return f"quickjs {found[0]} (layout {found[1]}) is not the 1.19.4 the cage knows"
    try:
        lib = ctypes.CDLL(_quickjs.__file__)
        native = _Native(lib.JS_SetInterruptHandler, lib.JS_GetRuntimeOpaque, lib.JS_GetRuntime)
    except (OSError, AttributeError) as exc:  # a build that hides its symbols
        return f"QuickJS's interrupt handler cannot be reached: {exc}"
    native.set_interrupt_handler.argtypes = [ctypes.c_void_p, _HANDLER, ctypes.c_void_p]
    native.set_interrupt_handler.restype = None
    native.get_runtime_opaque.argtypes = [ctypes.c_void_p]
    native.get_runtime_opaque.restype = ctypes.c_void_p
    native.get_runtime.argtypes = [ctypes.c_void_p]
    native.get_runtime.restype = ctypes.c_void_p
    return native


def native_interrupts() -> str | None:
    """None when the time limit and in-execution cancel work here, else why not."""
    found = _native()
    return found if isinstance(found, str) else None


def _runtime_pointer(native: _Native, ctx: Any) -> int | None:
    runtime = ctypes.c_void_p.from_address(id(ctx) + 16).value
    context = ctypes.c_void_p.from_address(id(ctx) + 24).value
    if not runtime or not context:
        return None
    # The module keeps its Context object as the runtime's opaque pointer: both must agree.
    if native.get_runtime(context) != runtime or native.get_runtime_opaque(runtime) != id(ctx):
        return None
    return int(runtime)


class _Budget:
    """The time left to the code now running, and the cancel token it answers to."""

    def __init__(self, cancel: CancelLike, cpu_clock: Callable[[], float]) -> None:
        self._cancel = cancel
        self._clock = cpu_clock
        self.expires: float | None = None
        self.tripped: str | None = None

    def arm(self, seconds: float) -> None:
        self.tripped = None
        self.expires = self._clock() + seconds

    def disarm(self) -> None:
        self.expires = None

    def extend(self, seconds: float) -> None:
        if self.expires is not None:
            self.expires += seconds

    def poll(self, _runtime: int | None, _opaque: int | None) -> int:
        """QuickJS's interrupt handler (every few thousand instructions): 1 stops the code."""
        try:
            if self.expires is None:
                return 0
            if is_cancelled(self._cancel):
                self.tripped = "cancelled"
            elif self._clock() > self.expires:
                self.tripped = "time"
            return 1 if self.tripped else 0
        except BaseException:  # nothing may escape into C
            return 0


def _out_of_memory(message: str) -> bool:
    first = message.split("\n", 1)[0].strip()
    # "null": QuickJS had no memory left even for the exception object.
    return first == "null" or first.startswith("InternalError: out of memory")


class _CagedContext:
    """The QuickJS context axllm's session evaluates in, set up with the cage's limits.
    Speaks the part of `quickjs.Context` the session uses."""

    def __init__(self, limits: CodeLimits, budget: _Budget, clock_ms: float | None) -> None:
        ctx = quickjs.Context()
        ctx.set_memory_limit(limits.memory_mib * MIB)
        ctx.set_max_stack_size(limits.stack_kib * KIB)
        self._ctx: Any = ctx
        self.budget = budget
        self._handler: Any = None
        self._runtime: int | None = None
        native = _native()
        if not isinstance(native, str):
            self._runtime = _runtime_pointer(native, ctx)
            if self._runtime is not None:
                self._handler = _HANDLER(budget.poll)
                native.set_interrupt_handler(self._runtime, self._handler, None)
        ctx.eval(JSON_GUARD)
        if clock_ms is not None:
            ctx.eval(CLOCK_SHIM.replace("__NOW_MS__", repr(float(clock_ms))))

    def _checked(self, call: Callable[[], Any]) -> Any:
        if self.budget.tripped:
            raise CodeLimitHit(self.budget.tripped)
        try:
            return call()
        except quickjs.JSException as exc:
            if self.budget.tripped:
                raise CodeLimitHit(self.budget.tripped) from None
            if _out_of_memory(str(exc)):
                raise CodeLimitHit("memory") from None
            raise

    def eval(self, source: str) -> Any:
        if source is _RUNTIME_SUPPORT and _PATCHED_SUPPORT is not None:
            source = _PATCHED_SUPPORT
        return self._checked(lambda: self._ctx.eval(source))

    def execute_pending_job(self) -> bool:
        return bool(self._checked(self._ctx.execute_pending_job))

    def add_callable(self, name: str, fn: Callable[..., Any]) -> None:
        self._ctx.add_callable(name, fn)

    def memory(self) -> dict[str, int]:
        return dict(self._ctx.memory())

    def release(self) -> None:
        """Free the QuickJS runtime now (a retired session's globals may be big)."""
        native = _native()
        if self._runtime is not None and not isinstance(native, str):
            native.set_interrupt_handler(self._runtime, _HANDLER(), None)
        self._runtime = None
        self._ctx = None

    def __del__(self) -> None:
        if self._ctx is not None:
            self.release()


_PATCHED_SUPPORT = patched_support(_RUNTIME_SUPPORT)


class LimitEvent(NamedTuple):
    """A limit stopped the model's code: which one, and what the model was told."""

    kind: str  # time | memory | code_size
    message: str


LimitListener = Callable[[LimitEvent], None]


@dataclass
class CodeCage:
    """What one run's model code runs under: the limits, the cancel token polled inside each
    execution, a stopped clock for `Date` (`clock_ms`, for the tests), and who hears of a
    limit hit."""

    limits: CodeLimits = field(default_factory=CodeLimits)
    cancel: CancelLike = None
    clock_ms: float | None = None
    on_limit: LimitListener | None = None
    cpu_clock: Callable[[], float] = time.thread_time
    #: Told when the model's code starts (True) and stops (False) running (a child run
    #: tells its parent, whose watchdog stops a process stuck where no limit reaches).
    on_code: Callable[[bool], None] | None = None

    def runtime(self) -> CagedQuickJsRuntime:
        return CagedQuickJsRuntime(self)


class CagedQuickJsRuntime(AxQuickJsCodeRuntime):
    """axllm's QuickJS runtime whose sessions run in the cage."""

    def __init__(self, cage: CodeCage) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.cage = cage
        self._quickjs = self  # the session builds its context with `runtime._quickjs.Context()`

    def Context(self) -> _CagedContext:  # quickjs.Context's name
        return _CagedContext(
            self.cage.limits, _Budget(self.cage.cancel, self.cage.cpu_clock), self.cage.clock_ms
        )

    def create_session(
        self, globals: dict[str, Any], options: dict[str, Any] | None = None
    ) -> CagedQuickJsSession:
        return CagedQuickJsSession(self, globals, options)


_CLOSED = {"is_error": True, "error_category": "session_closed", "error": "session closed"}
_ERROR = {"kind": "error", "is_error": True, "error_category": "runtime"}


class CagedQuickJsSession(AxQuickJsCodeSession):
    """One QuickJS session in the cage. After a limit stopped its code it is retired: every
    later call answers as a closed session does, and axllm starts a new one."""

    ctx: _CagedContext

    def __init__(
        self,
        runtime: CagedQuickJsRuntime,
        globals_: dict[str, Any],
        options: dict[str, Any] | None = None,
    ) -> None:
        self._cage = runtime.cage
        self._retired = False
        super().__init__(runtime, globals_, options)  # type: ignore[no-untyped-call]

    # -- the cage around each operation

    @contextmanager
    def _budget(self) -> Iterator[None]:
        budget = self.ctx.budget
        tell = self._cage.on_code
        if tell is not None:
            tell(True)
        budget.arm(self._cage.limits.time_s)
        try:
            yield
        finally:
            budget.disarm()
            if tell is not None:
                tell(False)

    def _stopped(self, kind: str, detail: str = "") -> str:
        """Note a limit hit (cancel raises) and retire the session; the model's message."""
        if kind == "cancelled":
            self._retire()
            raise RunCancelled()
        message = self._cage.limits.message(kind, detail)
        if self._cage.on_limit is not None:
            self._cage.on_limit(LimitEvent(kind, message))
        if kind != "code_size":
            self._retire()
        return message

    def _retire(self) -> None:
        self._retired = True
        self.closed = True
        self.ctx.release()

    def _host_call(self, name: str, params_json: str) -> Any:
        # The budget is the code's own: time spent answering a host call does not count.
        clock = self._cage.cpu_clock
        started = clock()
        try:
            return super()._host_call(name, params_json)  # type: ignore[no-untyped-call]
        finally:
            self.ctx.budget.extend(clock() - started)

    # -- axllm's AxCodeSession

    def execute(self, code: str, options: dict[str, Any] | None = None) -> Any:
        if self._retired:
            return dict(_CLOSED)
        size = len(code.encode("utf-8", "surrogatepass"))
        if size > self._cage.limits.code_kib * KIB:
            message = self._stopped("code_size", f"{size:,}")
            return {**_ERROR, "error": message}
        try:
            with self._budget():
                result = super().execute(code, options)
        except CodeLimitHit as hit:
            kind = hit.kind
        else:
            error = result.get("error") if isinstance(result, dict) else None
            if not (isinstance(error, str) and _out_of_memory(error)):
                return result
            kind = "memory"
        return {**_ERROR, "output": RESTART_NOTICE, "error": self._stopped(kind)}

    def _guarded(self, read: Callable[[], Any], empty: Any) -> Any:
        if self._retired:
            return empty
        try:
            with self._budget():
                return read()
        except CodeLimitHit as hit:
            self._stopped(hit.kind)
            return empty

    def _snap(self) -> Any:
        return self._guarded(super()._snap, {})

    def _entries(self) -> Any:
        return self._guarded(super()._entries, [])

    def patch_globals(self, snapshot: Any, options: Any = None) -> Any:
        if not self._retired:  # a retired session stays closed whatever the snapshot says
            base = AxQuickJsCodeSession.patch_globals
            patched = self._guarded(lambda: base(self, snapshot, options), None)  # type: ignore[no-untyped-call]
            if patched is not None:
                return patched
        return self.snapshot_globals(options or {})  # type: ignore[no-untyped-call]

    def close(self) -> Any:
        if not self._retired:
            self._retired = True
            self.ctx.release()
        self.closed = True
        return {"closed": True}
