"""The JavaScript the cage adds to axllm's QuickJS runtime, and its fixes to the runtime's
own support code.

QuickJS 2021-03-27 (the `quickjs` 1.19.4 wheel) serialises JSON by native recursion that
neither checks the C stack nor polls the interrupt handler, and it looks for cycles by
scanning every ancestor: a 200,000-deep object costs minutes of CPU and then overflows
the thread's stack (the process dies with SIGSEGV). `JSON_GUARD` bounds the depth the
native code may reach, throwing the RangeError Node throws for such objects.

`patched_support` fixes two quadratic costs in axllm's `_RUNTIME_SUPPORT` without changing
what it computes: QuickJS copies a string on every `out += ch` (so reading 1 MB of code
took minutes), and the snapshot's `canCloneValue` looked up every visited object in an
array.
"""

from __future__ import annotations

import re

#: Deeper than Node's own limit (about 4,500 levels with its default stack), far shallower
#: than what overflows an 8 MiB thread stack (about 40,000).
JSON_MAX_DEPTH = 5000

JSON_GUARD = """(function () {
  var nativeStringify = JSON.stringify;
  var maxDepth = __MAX_DEPTH__;
  function tooDeep() {
    return new RangeError('Maximum call stack size exceeded');
  }
  function preWalk(value) {
    // For a property-list replacer (no function can be combined with it): data
    // properties only, so no getter runs twice.
    var stack = [[value, 1]];
    var path = new Set();
    while (stack.length) {
      var top = stack.pop();
      var v = top[0], d = top[1];
      if (v === null || typeof v !== 'object' || path.has(v)) continue;
      if (d > maxDepth) throw tooDeep();
      path.add(v);
      var keys = Object.getOwnPropertyNames(v);
      for (var i = 0; i < keys.length; i++) {
        var desc = Object.getOwnPropertyDescriptor(v, keys[i]);
        if (desc && 'value' in desc) stack.push([desc.value, d + 1]);
      }
    }
  }
  function stringify(value, replacer, space) {
    if (Array.isArray(replacer)) {
      preWalk(value);
      return nativeStringify(value, replacer, space);
    }
    // A replacer sees every value the native code descends into (after toJSON, getters
    // and proxies), with its holder as `this`: each value's depth is its holder's plus one.
    var user = typeof replacer === 'function' ? replacer : null;
    var depths = new WeakMap();
    function bounded(key, v) {
      if (user !== null) v = user.call(this, key, v);
      if (v !== null && typeof v === 'object') {
        var d = (depths.get(this) || 0) + 1;
        if (d > maxDepth) throw tooDeep();
        depths.set(v, d);
      }
      return v;
    }
    return nativeStringify(value, bounded, space);
  }
  Object.defineProperty(JSON, 'stringify', {
    value: stringify, writable: true, enumerable: false, configurable: true
  });
})();
""".replace("__MAX_DEPTH__", str(JSON_MAX_DEPTH))

#: `Date` stopped at a given time (milliseconds since the epoch, `__NOW_MS__`): the
#: time-bomb tests set the model code's "now" without waiting for it.
CLOCK_SHIM = """(function () {
  var RealDate = Date;
  var now = function () { return __NOW_MS__; };
  function CagedDate() {
    if (!new.target) return new RealDate(now()).toString();
    return arguments.length ? Reflect.construct(RealDate, Array.from(arguments))
                            : new RealDate(now());
  }
  CagedDate.prototype = RealDate.prototype;
  CagedDate.now = now;
  CagedDate.UTC = RealDate.UTC;
  CagedDate.parse = RealDate.parse;
  Object.defineProperty(RealDate.prototype, 'constructor', {
    value: CagedDate, writable: true, enumerable: false, configurable: true
  });
  globalThis.Date = CagedDate;
})();
"""


def _strip_function_span(source: str) -> tuple[int, int] | None:
    start = source.find("function stripJsStringsAndComments(code) {")
    end = source.find("function extractTopLevelDeclaredNames(code) {", start)
    return None if start < 0 or end < 0 else (start, end)


def patched_support(source: str) -> str | None:
    """axllm's runtime support with the two quadratic spots fixed, or None when the text
    is not the one these fixes were written for (then the caller keeps the original)."""
    span = _strip_function_span(source)
    if span is None:
        return None
    start, end = span
    strip = source[start:end]
    fixed, n_init = re.subn(r'let out = "";', "let out = [];", strip)
    fixed, n_append = re.subn(r"out \+= (.+?);\n", r"out.push(\1);\n", fixed)
    fixed, n_return = re.subn(r"return out;\n", 'return out.join("");\n', fixed)
    if (n_init, n_return) != (1, 1) or n_append != strip.count("out +="):
        return None
    out = source[:start] + fixed + source[end:]
    clone_fixes = (
        ("seen.indexOf(value) >= 0", "seen.has(value)"),
        ("seen.push(value);", "seen.add(value);"),
        ("canCloneValue(value, [])", "canCloneValue(value, new Set())"),
    )
    for old, new in clone_fixes:
        if out.count(old) != 1:
            return None
        out = out.replace(old, new)
    return out
