"""Compare two sessions call by call, aligned by forward, stage and turn.

Typical use: a session and its rerun on another model, or before and after catalog edits.
The result is plain data (for the GUI's side-by-side view and `axmem diff --json`) plus a
text rendering for the terminal.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.session.contextmap_update import map_items
from axmem_gui.core.session.replay_cursor import request_diff
from axmem_gui.core.session.views import (
    CallKey,
    call_keys,
    callback_ids,
    duration_ms,
    exchanges,
    forwards,
    response_text,
    tokens,
)


@dataclass(frozen=True)
class CallPair:
    key: CallKey
    a_index: int | None
    b_index: int | None
    same_prompt: bool
    same_output: bool
    prompt_diff: str
    output_diff: str
    a_tokens: tuple[int, int]
    b_tokens: tuple[int, int]
    a_ms: float
    b_ms: float

    def to_json(self) -> dict[str, Any]:
        return {
            "forward": self.key.forward,
            "stage": self.key.stage,
            "turn": self.key.turn,
            "repeat": self.key.repeat,
            "a_index": self.a_index,
            "b_index": self.b_index,
            "same_prompt": self.same_prompt,
            "same_output": self.same_output,
            "prompt_diff": self.prompt_diff,
            "output_diff": self.output_diff,
            "a_tokens": {"prompt": self.a_tokens[0], "completion": self.a_tokens[1]},
            "b_tokens": {"prompt": self.b_tokens[0], "completion": self.b_tokens[1]},
            "a_ms": self.a_ms,
            "b_ms": self.b_ms,
        }


@dataclass(frozen=True)
class SetDiff:
    a: tuple[str, ...]
    b: tuple[str, ...]

    @property
    def only_a(self) -> tuple[str, ...]:
        return tuple(x for x in self.a if x not in self.b)

    @property
    def only_b(self) -> tuple[str, ...]:
        return tuple(x for x in self.b if x not in self.a)

    @property
    def same(self) -> bool:
        return set(self.a) == set(self.b)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": list(self.a),
            "b": list(self.b),
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "same": self.same,
        }


@dataclass(frozen=True)
class ForwardComparison:
    index: int
    same_inputs: bool
    a_output: Any
    b_output: Any
    a_status: str | None
    b_status: str | None
    sets: dict[str, SetDiff]
    map_items: SetDiff

    @property
    def same_output(self) -> bool:
        return bool(self.a_output == self.b_output)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "same_inputs": self.same_inputs,
            "same_output": self.same_output,
            "a_output": self.a_output,
            "b_output": self.b_output,
            "a_status": self.a_status,
            "b_status": self.b_status,
            "sets": {k: v.to_json() for k, v in self.sets.items()},
            "context_map_items": self.map_items.to_json(),
        }


@dataclass(frozen=True)
class SessionComparison:
    a_label: str
    b_label: str
    forwards: tuple[ForwardComparison, ...]
    calls: tuple[CallPair, ...]
    totals: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def identical_prompts(self) -> bool:
        return all(c.same_prompt for c in self.calls)

    @property
    def first_prompt_difference(self) -> CallPair | None:
        """The first call both sessions made with different prompts (else the first call
        only one of them made)."""
        paired = (c for c in self.calls if c.a_index is not None and c.b_index is not None)
        return next((c for c in paired if not c.same_prompt), None) or next(
            (c for c in self.calls if not c.same_prompt), None
        )

    def to_json(self) -> dict[str, Any]:
        first = self.first_prompt_difference
        return {
            "a": self.a_label,
            "b": self.b_label,
            "identical_prompts": self.identical_prompts,
            "first_prompt_difference": first.to_json() if first else None,
            "forwards": [f.to_json() for f in self.forwards],
            "calls": [c.to_json() for c in self.calls],
            "totals": self.totals,
        }


def _label(doc: Mapping[str, Any]) -> str:
    provider = doc.get("provider") if isinstance(doc.get("provider"), Mapping) else {}
    assert isinstance(provider, Mapping)
    return f"{doc.get('id')} ({provider.get('name')}/{provider.get('model')})"


def _text_diff(a: str, b: str, what: str) -> str:
    if a == b:
        return ""
    return "".join(
        difflib.unified_diff(
            a.splitlines(keepends=True),
            b.splitlines(keepends=True),
            fromfile=f"a {what}",
            tofile=f"b {what}",
        )
    )


def _request(ex: Mapping[str, Any] | None) -> Mapping[str, Any]:
    req = ex.get("request") if ex else None
    return req if isinstance(req, Mapping) else {}


def _pair(key: CallKey, a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> CallPair:
    same_prompt = a is not None and b is not None and a.get("digest") == b.get("digest")
    out_a = response_text(a.get("response")) if a else ""
    out_b = response_text(b.get("response")) if b else ""
    if a and a.get("error"):
        out_a = f"[error] {(a.get('error') or {}).get('message')}"
    if b and b.get("error"):
        out_b = f"[error] {(b.get('error') or {}).get('message')}"
    return CallPair(
        key=key,
        a_index=a.get("index") if a else None,
        b_index=b.get("index") if b else None,
        same_prompt=same_prompt,
        same_output=a is not None and b is not None and out_a == out_b,
        prompt_diff=""
        if same_prompt or a is None or b is None
        else request_diff(_request(a), _request(b), key.label(), ("a", "b")),
        output_diff=_text_diff(out_a, out_b, f"output ({key.label()})"),
        a_tokens=tokens(a) if a else (0, 0),
        b_tokens=tokens(b) if b else (0, 0),
        a_ms=duration_ms(a) if a else 0.0,
        b_ms=duration_ms(b) if b else 0.0,
    )


def _aligned_keys(a: list[CallKey], b: list[CallKey]) -> list[CallKey]:
    """A's order, with B-only keys slotted in after the key they follow in B."""
    out = list(a)
    in_out = set(a)
    for i, key in enumerate(b):
        if key in in_out:
            continue
        prev = next((b[j] for j in range(i - 1, -1, -1) if b[j] in in_out), None)
        pos = out.index(prev) + 1 if prev is not None else 0
        out.insert(pos, key)
        in_out.add(key)
    return out


_SETS = ("loaded_skills", "loaded_memories", "used_skills", "used_memories")


def _forward(
    i: int, fa: Mapping[str, Any] | None, fb: Mapping[str, Any] | None
) -> ForwardComparison:
    def text(fw: Mapping[str, Any] | None) -> str:
        cm = fw.get("context_map_after") if fw else None
        return str(cm.get("text", "")) if isinstance(cm, Mapping) else ""

    def items(fw: Mapping[str, Any] | None) -> tuple[str, ...]:
        return tuple(f"[{k}] {v}" for k, v in map_items(text(fw)).items())

    return ForwardComparison(
        index=i,
        same_inputs=bool(fa and fb and fa.get("inputs") == fb.get("inputs")),
        a_output=fa.get("output") if fa else None,
        b_output=fb.get("output") if fb else None,
        a_status=str(fa.get("status")) if fa else None,
        b_status=str(fb.get("status")) if fb else None,
        sets={
            kind: SetDiff(
                tuple(callback_ids(fa, kind)) if fa else (),
                tuple(callback_ids(fb, kind)) if fb else (),
            )
            for kind in _SETS
        },
        map_items=SetDiff(items(fa), items(fb)),
    )


def _totals(doc: Mapping[str, Any]) -> dict[str, float]:
    exs = exchanges(doc)
    return {
        "calls": float(len(exs)),
        "prompt_tokens": float(sum(tokens(e)[0] for e in exs)),
        "completion_tokens": float(sum(tokens(e)[1] for e in exs)),
        "model_ms": round(sum(duration_ms(e) for e in exs), 3),
    }


def compare_sessions(a: Mapping[str, Any], b: Mapping[str, Any]) -> SessionComparison:
    a_calls = dict(call_keys(a))
    b_calls = dict(call_keys(b))
    keys = _aligned_keys(list(a_calls), list(b_calls))
    fa, fb = forwards(a), forwards(b)
    return SessionComparison(
        a_label=_label(a),
        b_label=_label(b),
        forwards=tuple(
            _forward(i, fa[i] if i < len(fa) else None, fb[i] if i < len(fb) else None)
            for i in range(max(len(fa), len(fb)))
        ),
        calls=tuple(_pair(k, a_calls.get(k), b_calls.get(k)) for k in keys),
        totals={"a": _totals(a), "b": _totals(b)},
    )


def _fmt_tokens(t: tuple[int, int]) -> str:
    return f"{t[0]}+{t[1]}"


def render_comparison(cmp: SessionComparison, *, diffs: bool = True) -> str:
    """A terminal report: per forward, per call, then totals."""
    lines = [f"a: {cmp.a_label}", f"b: {cmp.b_label}", ""]
    for fw in cmp.forwards:
        lines.append(
            f"forward {fw.index + 1}: inputs {'same' if fw.same_inputs else 'DIFFER'}, "
            f"output {'same' if fw.same_output else 'DIFFERS'} "
            f"(a: {fw.a_status}, b: {fw.b_status})"
        )
        if not fw.same_output:
            lines.append(f"  a output: {json_dumps(fw.a_output)}")
            lines.append(f"  b output: {json_dumps(fw.b_output)}")
        for kind, sd in fw.sets.items():
            if sd.same:
                lines.append(f"  {kind}: same {list(sd.a)}")
            else:
                lines.append(f"  {kind}: a only {list(sd.only_a)}, b only {list(sd.only_b)}")
        if not fw.map_items.same:
            lines.append("  context map after:")
            lines.extend(f"    - {x}" for x in fw.map_items.only_a)
            lines.extend(f"    + {x}" for x in fw.map_items.only_b)
    lines.append("")
    lines.append("calls (prompt / output / tokens a→b / ms a→b):")
    for c in cmp.calls:
        where = c.key.label()
        if c.a_index is None or c.b_index is None:
            side = "b only" if c.a_index is None else "a only"
            lines.append(f"  {where}: {side}")
            continue
        lines.append(
            f"  {where}: prompt {'same' if c.same_prompt else 'DIFFERS'}, "
            f"output {'same' if c.same_output else 'DIFFERS'}, "
            f"tokens {_fmt_tokens(c.a_tokens)}→{_fmt_tokens(c.b_tokens)}, "
            f"{c.a_ms:.0f}→{c.b_ms:.0f} ms"
        )
    first = cmp.first_prompt_difference
    if diffs and first is not None and first.prompt_diff:
        lines += ["", f"first prompt difference ({first.key.label()}):", first.prompt_diff]
    ta, tb = cmp.totals.get("a", {}), cmp.totals.get("b", {})
    lines += [
        "",
        "totals: calls {:.0f}→{:.0f}, prompt tokens {:.0f}→{:.0f}, completion tokens "
        "{:.0f}→{:.0f}, model time {:.0f}→{:.0f} ms".format(
            ta.get("calls", 0),
            tb.get("calls", 0),
            ta.get("prompt_tokens", 0),
            tb.get("prompt_tokens", 0),
            ta.get("completion_tokens", 0),
            tb.get("completion_tokens", 0),
            ta.get("model_ms", 0),
            tb.get("model_ms", 0),
        ),
    ]
    return "\n".join(lines).rstrip() + "\n"
