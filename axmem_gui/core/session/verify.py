"""Check everything a session file claims that can be checked without running the agent.

* every stored request against its stored digest;
* every recorded discover/recall, searched again on the recorded catalog with the recorded
  search backend, against the recorded results (ids and content);
* every derived field against what it derives from: exchange usage, forward exchange
  ranges, actor turns (from the trace and the exchanges), context-map update records
  (from the two map calls and the map states), the map chain between forwards,
  `contextMapSnapshots`, `warnings`, the session status and error.

What only a run can tell (the prompts the agent would send, its trace, action log, usage,
output and map) is the replay's part (engine.replay), which starts with these checks.
Each problem is a `Difference` naming where it is and carrying a unified diff.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.session.app_session import (
    is_app_session,
    is_host_search,
    turn_links,
    update_disagreements,
)
from axmem_gui.core.session.contextmap_update import EVICTION_KEYS, describe_update
from axmem_gui.core.session.derive import (
    exchange_usage,
    map_snapshots,
    map_warnings,
    turns,
)
from axmem_gui.core.session.digest import DIGEST_KEYS, request_digest
from axmem_gui.core.session.views import exchanges, forwards
from axmem_gui.core.session.whatif import RetrievalBackend


@dataclass(frozen=True)
class Difference:
    """One thing a session file (or its replay) says that is not so."""

    where: str  # a JSON path into the file, e.g. "exchanges[3].request"
    kind: str  # digest | stored_request | prompt | search | derived | outcome | calls
    message: str
    diff: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def render(self) -> str:
        out = f"{self.where}: {self.message}\n"
        if self.diff:
            out += "\n" + self.diff.rstrip("\n") + "\n"
        return out


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def json_diff(
    recorded: Any, actual: Any, where: str, sides: tuple[str, str] = ("recorded", "recomputed")
) -> str:
    """Unified diff of two JSON values, pretty-printed with sorted keys."""
    return "".join(
        difflib.unified_diff(
            pretty_json(recorded).splitlines(keepends=True),
            pretty_json(actual).splitlines(keepends=True),
            fromfile=f"{sides[0]} {where}",
            tofile=f"{sides[1]} {where}",
            n=2,
        )
    )


def digest_diff(stored: str, computed: str, where: str, computed_label: str) -> str:
    """The two full digests as a diff (a short prefix can be equal on both sides)."""
    return f"--- stored {where}.digest\n+++ {computed_label}\n@@ -1 +1 @@\n-{stored}\n+{computed}\n"


def derived(where: str, recorded: Any, recomputed: Any, what: str) -> Difference | None:
    if recorded == recomputed:
        return None
    return Difference(
        where,
        "derived",
        f"{what} does not match what it is derived from",
        json_diff(recorded, recomputed, where),
    )


# ------------------------------------------------------------------ checks ---


def check_digests(doc: Mapping[str, Any]) -> list[Difference]:
    out: list[Difference] = []
    for i, ex in enumerate(exchanges(doc)):
        request = ex.get("request")
        computed = request_digest(request if isinstance(request, Mapping) else {})
        stored = str(ex.get("digest"))
        if computed != stored:
            where = f"exchanges[{i}]"
            out.append(
                Difference(
                    f"{where}.request",
                    "digest",
                    f"the stored request of call #{i} ({ex.get('stage')}) does not match its "
                    f"stored digest: either the request text or the digest was changed "
                    f"(the digest covers {', '.join(DIGEST_KEYS)})",
                    digest_diff(stored, computed, where, "digest of the stored request"),
                )
            )
    return out


def _result_key(result: Any) -> Any:
    return result.get("id") if isinstance(result, Mapping) else None


def rerun_search(
    call: Mapping[str, Any], catalog: Catalog, backend: RetrievalBackend
) -> list[dict[str, str]]:
    """What `backend` returns today for a recorded call, in the recorded result shape."""
    queries = [str(s) for s in call.get("searches") or []]
    if call.get("kind") == "discover":
        return [
            {"id": s.id, "name": s.name, "content": s.content}
            for s in backend.discover(catalog, queries)
        ]
    loaded = [str(x) for x in call.get("already_loaded") or []]
    return [{"id": m.id, "content": m.content} for m in backend.recall(catalog, queries, loaded)]


def search_difference(
    where: str, call: Mapping[str, Any], recomputed: Sequence[Mapping[str, Any]]
) -> Difference | None:
    recorded = call.get("results")
    if recorded == list(recomputed):
        return None
    rec_ids = [_result_key(r) for r in recorded] if isinstance(recorded, list) else None
    new_ids = [_result_key(r) for r in recomputed]
    what = (
        "the same entries with other content"
        if rec_ids == new_ids
        else f"entries {new_ids} instead of the recorded {rec_ids}"
    )
    label = f"{call.get('kind')}({json.dumps(call.get('searches'), ensure_ascii=False)})"
    return Difference(
        f"{where}.results",
        "search",
        f"{label} searched again on the recorded catalog finds {what}",
        json_diff(recorded, list(recomputed), f"{where}.results", ("recorded", "searched")),
    )


def check_searches(doc: Mapping[str, Any], backend: RetrievalBackend) -> list[Difference]:
    try:
        catalog = catalog_from_json_value(doc.get("catalog"), "catalog")
    except InputError as exc:
        return [Difference("catalog", "search", f"the recorded catalog cannot be read: {exc}")]
    out: list[Difference] = []
    for fw in forwards(doc):
        for j, call in enumerate(fw.get("searches") or []):
            if not isinstance(call, Mapping) or is_host_search(call):
                continue  # an app's own search callback answered: shown as recorded
            where = f"forwards[{fw.get('index')}].searches[{j}]"
            diff = search_difference(where, call, rerun_search(call, catalog, backend))
            if diff is not None:
                out.append(diff)
    return out


def _forward_exchanges(
    all_exchanges: Sequence[Mapping[str, Any]], fw: Mapping[str, Any]
) -> list[Mapping[str, Any]]:
    index = fw.get("index")
    return [e for e in all_exchanges if e.get("forward") == index]


def comparable_update(recorded: Any, recomputed: Mapping[str, Any]) -> Any:
    """The recomputed update record, without the eviction keys when the recorded one was
    written before evictions were recorded (all of them absent)."""
    if isinstance(recorded, Mapping) and not any(k in recorded for k in EVICTION_KEYS):
        return {k: v for k, v in recomputed.items() if k not in EVICTION_KEYS}
    return dict(recomputed)


def check_derived(doc: Mapping[str, Any]) -> list[Difference]:
    out: list[Difference | None] = []
    all_exchanges = exchanges(doc)
    for i, ex in enumerate(all_exchanges):
        if ex.get("response") is not None or "usage" in ex:
            out.append(
                derived(
                    f"exchanges[{i}].usage",
                    ex.get("usage"),
                    exchange_usage(ex.get("response")),
                    "the token usage",
                )
            )
    fws = forwards(doc)
    has_map = isinstance(doc.get("agent"), Mapping) and bool(doc["agent"].get("contextMap"))
    previous_after: Any = None
    for k, fw in enumerate(fws):
        if fw.get("status") == "not_run":
            continue
        where = f"forwards[{k}]"
        mine = _forward_exchanges(all_exchanges, fw)
        if mine or "exchange_range" in fw:
            first = int(mine[0].get("index") or 0) if mine else None
            end = int(mine[-1].get("index") or 0) + 1 if mine else None
            recorded_range = fw.get("exchange_range")
            if mine and recorded_range != [first, end]:
                out.append(
                    derived(
                        f"{where}.exchange_range", recorded_range, [first, end], "the call range"
                    )
                )
        if is_app_session(doc) and fw.get("trace") is None:
            # TypeScript Ax has no trace: the app's recorder saw the turns; each must
            # point at the actor call that wrote its code.
            out.extend(
                Difference(f"{where}.turns[{j}]", "derived", f"the actor turn {problem}")
                for j, problem in turn_links(fw, mine)
            )
        else:
            out.append(
                derived(
                    f"{where}.turns",
                    fw.get("turns"),
                    turns(fw.get("trace"), mine),
                    "the actor turns",
                )
            )
        if has_map:
            before, after = fw.get("context_map_before"), fw.get("context_map_after")
            if k > 0 and previous_after is not None:
                out.append(
                    derived(
                        f"{where}.context_map_before",
                        before,
                        previous_after,
                        "the map a forward starts from (the previous forward's map after)",
                    )
                )
            recomputed = describe_update(mine, before, after)
            recorded = fw.get("context_map_update")
            out.extend(
                Difference(
                    f"{where}.context_map_update",
                    "derived",
                    f"the context-map update read from the map calls disagrees with Ax: {problem}",
                )
                for problem in update_disagreements(recomputed, fw.get("context_map_update_ax"))
            )
            out.append(
                derived(
                    f"{where}.context_map_update",
                    recorded,
                    comparable_update(recorded, recomputed),
                    "the context-map update record",
                )
            )
            previous_after = after
    if has_map:
        snapshots = doc.get("contextMapSnapshots")
        recomputed_snaps = map_snapshots(fws)
        if isinstance(snapshots, list):
            recomputed_snaps = [
                {**s, "update": comparable_update(r.get("update"), s["update"])}
                if "update" in s and isinstance(r, Mapping) and isinstance(s["update"], Mapping)
                else s
                for s, r in zip(
                    recomputed_snaps, snapshots + [None] * len(recomputed_snaps), strict=False
                )
            ]
        out.append(
            derived("contextMapSnapshots", snapshots, recomputed_snaps, "the context-map snapshots")
        )
    out.append(derived("warnings", doc.get("warnings"), map_warnings(fws), "the warnings"))
    failed = next((f for f in fws if f.get("status") in ("failed", "cancelled")), None)
    out.append(
        derived("status", doc.get("status"), "incomplete" if failed else "complete", "the status")
    )
    out.append(
        derived("error", doc.get("error"), failed.get("error") if failed else None, "the error")
    )
    return [d for d in out if d is not None]


# ------------------------------------------------------------------ report ---


@dataclass(frozen=True)
class VerifyReport:
    session_id: str
    differences: tuple[Difference, ...]
    calls: int
    searches: int
    duration_ms: float
    #: Searches an app's own callback answered: shown as recorded, not searched again.
    host_searches: int = 0

    @property
    def ok(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session_id,
            "ok": self.ok,
            "calls": self.calls,
            "searches": self.searches,
            "host_searches": self.host_searches,
            "differences": [d.to_json() for d in self.differences],
            "duration_ms": self.duration_ms,
        }

    def render(self) -> str:
        if self.ok:
            host = (
                f" ({self.host_searches} more were answered by the app's own search callback "
                "and are shown as recorded)"
                if self.host_searches
                else ""
            )
            return (
                f"verified: {self.calls} stored requests match their digests, "
                f"{self.searches - self.host_searches} searches give the recorded results on "
                f"the recorded catalog{host}, every derived field matches "
                f"({self.duration_ms / 1000:.2f} s; the agent was not run: `axmem replay` "
                "checks the prompts)\n"
            )
        return render_differences(f"DIFFERENT: {self.session_id}", self.differences)


def render_differences(title: str, differences: Sequence[Difference]) -> str:
    first = differences[0]
    text = f"{title}\nfirst difference: {first.message}\n  at {first.where} ({first.kind})\n"
    if first.diff:
        text += "\n" + first.diff.rstrip("\n") + "\n"
    if len(differences) > 1:
        more = [f"  {d.where} ({d.kind})" for d in differences[1:11]]
        extra = len(differences) - 11
        text += f"\n{len(differences) - 1} more difference(s):\n" + "\n".join(more) + "\n"
        if extra > 0:
            text += f"  ... and {extra} more\n"
    return text


def verify_file(doc: Mapping[str, Any], backend: RetrievalBackend) -> list[Difference]:
    """All file-level differences, in file order: digests, searches, derived fields."""
    return check_digests(doc) + check_searches(doc, backend) + check_derived(doc)
