"""Compare two sessions call by call, aligned by forward, stage and turn.

Typical use: a session and its rerun on another model, or before and after catalog edits.
The result is plain data (for the GUI's side-by-side view and `axmem diff --json`) plus a
text rendering for the terminal.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.records import JsonValue
from axmem_gui.core.session.analytics import SessionTotals, session_totals
from axmem_gui.core.session.compare_config import (
    AgentDiff,
    CatalogDiff,
    compare_agents,
    compare_catalogs,
    render_agent_diff,
    render_catalog_diff,
)
from axmem_gui.core.session.contextmap_update import map_items
from axmem_gui.core.session.digest import prompt_digest
from axmem_gui.core.session.model import Exchange, Forward, Session
from axmem_gui.core.session.payloads import map_text, response_text
from axmem_gui.core.session.replay_cursor import request_diff
from axmem_gui.core.session.views import CallKey, call_keys


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
    a_output: JsonValue
    b_output: JsonValue
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
    a_totals: SessionTotals
    b_totals: SessionTotals
    #: What each agent was given: the catalog entries and the agent config.
    catalog: CatalogDiff
    agent: AgentDiff

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
            "catalog": self.catalog.to_json(),
            "agent": self.agent.to_json(),
            "forwards": [f.to_json() for f in self.forwards],
            "calls": [c.to_json() for c in self.calls],
            "totals": {"a": _totals_json(self.a_totals), "b": _totals_json(self.b_totals)},
        }


def _totals_json(t: SessionTotals) -> dict[str, float]:
    return {
        "calls": float(t.calls),
        "prompt_tokens": float(t.prompt_tokens),
        "completion_tokens": float(t.completion_tokens),
        "model_ms": t.model_ms,
    }


def _label(session: Session) -> str:
    return f"{session.id} ({session.provider.name}/{session.provider.model})"


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


def _output(ex: Exchange | None) -> str:
    if ex is None:
        return ""
    if ex.error is not None:
        return f"[error] {ex.error.message}"
    return response_text(ex.response)


def _pair(key: CallKey, a: Exchange | None, b: Exchange | None) -> CallPair:
    # The prompt, not the whole digest: a rerun on another model still lines up.
    same_prompt = a is not None and b is not None and prompt_digest(a.request) == prompt_digest(
        b.request
    )
    out_a, out_b = _output(a), _output(b)
    return CallPair(
        key=key,
        a_index=a.index if a else None,
        b_index=b.index if b else None,
        same_prompt=same_prompt,
        same_output=a is not None and b is not None and out_a == out_b,
        prompt_diff=""
        if same_prompt or a is None or b is None
        else request_diff(a.request, b.request, key.label(), ("a", "b")),
        output_diff=_text_diff(out_a, out_b, f"output ({key.label()})"),
        a_tokens=a.tokens if a else (0, 0),
        b_tokens=b.tokens if b else (0, 0),
        a_ms=a.ms if a else 0.0,
        b_ms=b.ms if b else 0.0,
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


def _forward(i: int, fa: Forward | None, fb: Forward | None) -> ForwardComparison:
    def items(fw: Forward | None) -> tuple[str, ...]:
        text = map_text(fw.context_map_after) if fw else ""
        return tuple(f"[{k}] {v}" for k, v in map_items(text).items())

    return ForwardComparison(
        index=i,
        same_inputs=bool(fa and fb and fa.inputs == fb.inputs),
        a_output=fa.output if fa else None,
        b_output=fb.output if fb else None,
        a_status=fa.status if fa else None,
        b_status=fb.status if fb else None,
        sets={
            kind: SetDiff(
                tuple(fa.callback_ids(kind)) if fa else (),
                tuple(fb.callback_ids(kind)) if fb else (),
            )
            for kind in _SETS
        },
        map_items=SetDiff(items(fa), items(fb)),
    )


def compare_sessions(a: Session, b: Session) -> SessionComparison:
    a_calls = dict(call_keys(a))
    b_calls = dict(call_keys(b))
    keys = _aligned_keys(list(a_calls), list(b_calls))
    fa, fb = a.forwards, b.forwards
    return SessionComparison(
        a_label=_label(a),
        b_label=_label(b),
        forwards=tuple(
            _forward(i, fa[i] if i < len(fa) else None, fb[i] if i < len(fb) else None)
            for i in range(max(len(fa), len(fb)))
        ),
        calls=tuple(_pair(k, a_calls.get(k), b_calls.get(k)) for k in keys),
        a_totals=session_totals(a),
        b_totals=session_totals(b),
        catalog=compare_catalogs(a.catalog.catalog, b.catalog.catalog),
        agent=compare_agents(a, b),
    )


def _fmt_tokens(t: tuple[int, int]) -> str:
    return f"{t[0]}+{t[1]}"


def render_comparison(cmp: SessionComparison, *, diffs: bool = True) -> str:
    """A terminal report: per forward, per call, then totals."""
    lines = [f"a: {cmp.a_label}", f"b: {cmp.b_label}", ""]
    lines += render_agent_diff(cmp.agent, diffs=diffs)
    lines += render_catalog_diff(cmp.catalog, diffs=diffs)
    lines.append("")
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
    ta, tb = cmp.a_totals, cmp.b_totals
    lines += [
        "",
        f"totals: calls {ta.calls:.0f}→{tb.calls:.0f}, prompt tokens "
        f"{ta.prompt_tokens:.0f}→{tb.prompt_tokens:.0f}, completion tokens "
        f"{ta.completion_tokens:.0f}→{tb.completion_tokens:.0f}, model time "
        f"{ta.model_ms:.0f}→{tb.model_ms:.0f} ms",
    ]
    return "\n".join(lines).rstrip() + "\n"
