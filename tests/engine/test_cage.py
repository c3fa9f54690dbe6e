"""The cage around model-written JavaScript (engine.cage): each limit, in the QuickJS session
axllm's agent uses. On main these cases hang (the loops), take minutes (deep JSON, big
code) or kill the process with SIGSEGV (the deep object)."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import quickjs
from axllm.runtime_quickjs import _RUNTIME_SUPPORT

from axmem_gui.core.errors import InputError
from axmem_gui.core.session.code_limits import CodeLimits
from axmem_gui.engine.cage import RESTART_NOTICE, CodeCage, LimitEvent, native_interrupts
from axmem_gui.engine.cage_js import JSON_GUARD, patched_support
from axmem_gui.engine.clients import CancelToken
from axmem_gui.engine.errors import RunCancelled

#: A short budget keeps the loop tests quick; the defaults are tested as numbers.
FAST = CodeLimits(time_s=0.3)
DEEP = "let o = {}; for (let i = 0; i < 200000; i++) o = {a: o};"


def session(limits: CodeLimits = FAST, **kw: Any) -> tuple[Any, list[LimitEvent]]:
    events: list[LimitEvent] = []
    cage = CodeCage(limits, on_limit=events.append, **kw)
    return cage.runtime().create_session({"inputs": {"query": "q"}}), events


def test_the_interrupt_handler_is_installed_here() -> None:
    # The time limit and in-execution cancel depend on it (quickjs 1.19.4 on CPython).
    assert native_interrupts() is None


def test_the_defaults_are_safe_numbers() -> None:
    limits = CodeLimits()
    assert (limits.time_s, limits.memory_mib, limits.stack_kib, limits.code_kib) == (
        5.0,
        256,
        1024,
        64,
    )


@pytest.mark.parametrize("code", ["while (true) {}", "await null; for (;;) {}"])
def test_an_endless_loop_ends_at_the_time_limit_and_the_runtime_restarts(code: str) -> None:
    s, events = session()
    result = s.execute(code)
    assert result["is_error"] and result["error_category"] == "runtime"
    assert result["error"] == "Error: Execution timed out (limit: 0.3 s of CPU time)"
    assert result["output"] == RESTART_NOTICE
    assert [e.kind for e in events] == ["time"]
    # The session is retired: axllm starts a fresh one for the next execution.
    assert s.execute("1")["error_category"] == "session_closed"
    assert s.snapshot_globals()["bindings"] == {}
    assert s.patch_globals({"globals": {"x": 1}, "closed": False})["closed"] is True


def test_code_that_finishes_is_untouched() -> None:
    s, events = session()
    result = s.execute("const answer = 6 * 7; console.log(answer);")
    assert not result.get("is_error") and result["logs"] == ["42"]
    assert s.snapshot_globals()["bindings"] == {"answer": 42}
    assert events == []


def test_time_spent_in_a_host_call_is_not_the_codes() -> None:
    seen: list[int] = []

    def slow_host(params: Any) -> int:
        # CPU time spent in Python on the code's behalf (a search, a replayed llmQuery).
        total = 0
        for i in range(3_000_000):
            total += i
        seen.append(total)
        return 1

    cage = CodeCage(CodeLimits(time_s=0.05))
    runtime = cage.runtime()
    runtime.register_callable("slowHost", slow_host)  # type: ignore[no-untyped-call]
    s = runtime.create_session({})
    result = s.execute("const r = await slowHost({}); console.log(r);")
    assert not result.get("is_error"), result
    assert seen and result["logs"] == ["1"]


def test_a_cancel_stops_code_that_is_running() -> None:
    token = CancelToken()
    started = threading.Event()
    cage = CodeCage(CodeLimits(time_s=600), cancel=token)
    runtime = cage.runtime()
    runtime.register_callable("started", lambda _params: started.set())  # type: ignore[no-untyped-call]
    s = runtime.create_session({})
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            s.execute("started({}); while (true) {}")
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert started.wait(60)
    token.cancel()
    worker.join(60)
    assert not worker.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], RunCancelled)


def test_a_memory_hog_ends_at_the_memory_limit() -> None:
    s, events = session(CodeLimits(memory_mib=64))
    result = s.execute(
        "globalThis.a = []; for (let i = 0; i < 4000; i++) a.push('x'.repeat(2 ** 20) + i);"
    )
    assert result["error"] == "InternalError: out of memory (limit: 64 MiB)"
    assert [e.kind for e in events] == ["memory"]
    assert s.execute("1")["error_category"] == "session_closed"


def test_the_memory_limit_is_the_runtimes() -> None:
    s, _ = session(CodeLimits(memory_mib=32))
    assert s.ctx.memory()["malloc_limit"] == 32 * 1024 * 1024


def test_deep_recursion_is_a_stack_overflow_the_code_can_catch() -> None:
    s, events = session()
    result = s.execute(
        "function f(n) { return f(n + 1) + 1; }\n"
        "try { f(0); } catch (e) { console.log(e.name + ': ' + e.message); }"
    )
    assert result["logs"] == ["InternalError: stack overflow"]
    assert events == []


def test_code_over_the_size_limit_is_refused_before_it_is_parsed() -> None:
    s, events = session(CodeLimits(code_kib=1))
    # Not valid JavaScript: parsing it would say SyntaxError.
    code = "this is not javascript " * 100
    result = s.execute(code)
    assert result["error"] == (
        "Error: Code too large (2,300 bytes; limit: 1 KiB per execution); it was not run"
    )
    assert [e.kind for e in events] == ["code_size"]
    # Nothing ran, so the session goes on.
    assert s.execute("console.log('still here')")["logs"] == ["still here"]


def test_a_deep_object_is_an_error_not_a_crash() -> None:
    s, _ = session(CodeLimits(time_s=30))
    # The state snapshot stringifies every global after each execution: on main this
    # segfaults the process.
    assert not s.execute(DEEP).get("is_error")
    snapshot = s.snapshot_globals()
    assert "o" not in snapshot["bindings"]
    result = s.execute(
        "try { JSON.stringify(o); } catch (e) { console.log(e.name + ': ' + e.message); }"
    )
    assert result["logs"][0] in (
        "RangeError: Maximum call stack size exceeded",
        "InternalError: stack overflow",
    )


@pytest.mark.parametrize(
    "build",
    [
        # values the native serialiser only meets while it runs
        "const deep = {toJSON() { let o = {}; for (let i = 0; i < 200000; i++) o = {a: o};"
        " return o; }};",
        "const deep = {get x() { let o = []; for (let i = 0; i < 200000; i++) o = [o];"
        " return o; }};",
        "let p = {}; for (let i = 0; i < 200000; i++) p = {a: p};"
        " const deep = new Proxy({}, {ownKeys: () => ['a'], getOwnPropertyDescriptor:"
        " () => ({value: p, enumerable: true, configurable: true}), get: () => p});",
    ],
)
def test_json_depth_is_bounded_whatever_makes_the_value(build: str) -> None:
    s, _ = session(CodeLimits(time_s=30))
    result = s.execute(
        build + "\ntry { JSON.stringify(deep); console.log('no error'); }"
        " catch (e) { console.log(e.name); }"
    )
    assert result["logs"] in (["RangeError"], ["InternalError"])


def test_a_property_list_replacer_is_bounded_too() -> None:
    s, _ = session(CodeLimits(time_s=30))
    result = s.execute(
        DEEP + "\ntry { JSON.stringify(o, ['a']); } catch (e) { console.log(e.name); }"
    )
    assert result["logs"] == ["RangeError"]


JSON_CASES = [
    "JSON.stringify({a: [1, 'x', null, true, {b: 2}], c: undefined, d: () => 1})",
    "JSON.stringify([new Date(0), {toJSON(k) { return 'key ' + k; }}], null, 2)",
    "JSON.stringify({a: 1, b: {c: 2}}, (k, v) => typeof v === 'number' ? v * 10 : v)",
    "JSON.stringify({a: 1, b: 2, c: {a: 3, d: 4}}, ['a', 'c'], '\\t')",
    "JSON.stringify('plain'); ",
    "JSON.stringify(undefined) === undefined",
    "(function(){ try { const c = {}; c.c = c; JSON.stringify(c); }"
    " catch (e) { return e.name + ': ' + e.message; } })()",
    "(function(){ try { JSON.stringify({n: 1n}); }"
    " catch (e) { return e.name + ': ' + e.message; } })()",
    "JSON.stringify(new Array(1000).fill({x: [1, 2]}))",
    "JSON.stringify.length + ' ' + JSON.stringify.name",
]


@pytest.mark.parametrize("expr", JSON_CASES)
def test_the_bounded_json_stringify_gives_what_quickjs_gives(expr: str) -> None:
    plain = quickjs.Context()
    guarded = quickjs.Context()
    guarded.eval(JSON_GUARD)
    assert guarded.eval(expr) == plain.eval(expr)


ANALYSED_CODE = [
    "const a = 1; let b = 'x // not a comment'; var c = `t ${a} \\` q`;\n// comment\nd = 4;",
    "/* block\n comment */ const {x, y: [z]} = obj; globalThis.w = x + z; e.f = 1; g++;",
    'async function h() { return await llmQuery([{query: "q", context: {}}]); }\n'
    "const r = await h(); console.log(r); tools.search({q: 1}); ns.deep.call();",
    "const s = 'it\\'s'; const t = \"say \\\"hi\\\"\"; const u = '\\\\'; let v; v ??= 2;",
    "",
    "unterminated = 'string",
]


def _plain_support(source: str) -> Any:
    ctx = quickjs.Context()
    ctx.eval(source)
    return ctx


def test_the_patched_runtime_support_computes_what_axllms_does() -> None:
    patched = patched_support(_RUNTIME_SUPPORT)
    assert patched is not None and patched != _RUNTIME_SUPPORT
    original, fixed = _plain_support(_RUNTIME_SUPPORT), _plain_support(patched)
    for code in ANALYSED_CODE:
        call = f"__ax_analyze_code({json.dumps(code)})"
        assert fixed.eval(call) == original.eval(call), code
    state = (
        "globalThis.m = new Map([[1, {a: 1}]]); globalThis.shared = {k: 1};"
        "globalThis.list = [shared, shared, {f() {}}]; globalThis.when = new Date(0);"
        "globalThis.cyc = {}; cyc.self = cyc;"
    )
    original.eval(state)
    fixed.eval(state)
    inspect = "__ax_inspect_entries([])"
    assert fixed.eval(inspect) == original.eval(inspect)


def test_patching_other_support_text_gives_up_rather_than_guess() -> None:
    assert patched_support("function somethingElse() {}") is None


def test_the_time_bomb_goes_off_inside_the_cage() -> None:
    # Dormant before T, a memory bomb after: with the clock moved past T it is stopped by
    # the memory limit (on main it would take the process down with it).
    bomb = (
        "if (Date.now() > 2000000000000) { globalThis.a = [];"
        " for (;;) a.push('x'.repeat(2 ** 20)); } else { console.log('dormant'); }"
    )
    before, _ = session(CodeLimits(memory_mib=32), clock_ms=1_999_999_999_000.0)
    assert before.execute(bomb)["logs"] == ["dormant"]
    after, events = session(CodeLimits(memory_mib=32), clock_ms=2_000_000_000_001.0)
    assert after.execute(bomb)["error"] == "InternalError: out of memory (limit: 32 MiB)"
    assert [e.kind for e in events] == ["memory"]


def test_the_stopped_clock_keeps_dates_working() -> None:
    s, _ = session(clock_ms=86_400_000.0)
    result = s.execute(
        "console.log(Date.now(), new Date().toISOString(), new Date(0).getTime(),"
        " new Date() instanceof Date, typeof Date());"
    )
    assert result["logs"] == ["86400000 1970-01-02T00:00:00.000Z 0 true string"]


@pytest.mark.parametrize(
    ("limits", "problem"),
    [
        (CodeLimits(time_s=1e9), "time_s must be between 0.01 and 600"),
        (CodeLimits(memory_mib=0), "memory_mib must be between 16 and 4096"),
        (CodeLimits(stack_kib=1 << 20), "stack_kib must be between 64 and 4096"),
        (CodeLimits(code_kib=True), "code_kib must be a number"),
    ],
)
def test_limits_out_of_bounds_are_refused(limits: CodeLimits, problem: str) -> None:
    assert limits.problem() is not None and problem in str(limits.problem())
    with pytest.raises(InputError, match=problem):
        limits.checked("--code-time-limit")


def test_the_default_limits_are_the_formats() -> None:
    assert CodeLimits().is_default and CodeLimits().problem() is None
    assert not CodeLimits(time_s=2.5).is_default
