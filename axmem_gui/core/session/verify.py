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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.records import JsonObject, JsonValue, to_json_value
from axmem_gui.core.session.app_session import (
    forwards_read,
    is_app_session,
    is_host_search,
    leaves_derived,
    leaves_update,
    turn_links,
    update_disagreements,
)
from axmem_gui.core.session.contextmap_update import comparable_update, describe_update
from axmem_gui.core.session.coverage import Coverage, coverage_json, render_coverage
from axmem_gui.core.session.derive import forward_turns, map_snapshots, map_warnings
from axmem_gui.core.session.digest import DIGEST_KEYS, digest_scheme, exchange_digest
from axmem_gui.core.session.map_settings import (
    carried_settings,
    effective_settings,
    settings_warnings,
)
from axmem_gui.core.session.model import Exchange, Forward, SearchCall, SearchResult, Session
from axmem_gui.core.session.payloads import usage_of_response
from axmem_gui.core.session.verify_calls import call_claims
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
        """For a terminal: the diff shortened to `SHOWN_DIFF_LINES` lines of at most
        `SHOWN_LINE_CHARS` characters (a replayed session whose model sent a megabyte of
        code printed all of it, on one line); `to_json` keeps the whole diff."""
        out = f"{self.where}: {self.message}\n"
        if self.diff:
            out += "\n" + shortened(self.diff.rstrip("\n")) + "\n"
        return out


#: What `Difference.render` shows of a diff (the JSON report has all of it).
SHOWN_DIFF_LINES = 200
SHOWN_LINE_CHARS = 1_000


def shortened(diff: str) -> str:
    lines = diff.split("\n")
    shown = [
        line
        if len(line) <= SHOWN_LINE_CHARS
        else f"{line[:SHOWN_LINE_CHARS]}… ({len(line) - SHOWN_LINE_CHARS:,} more characters)"
        for line in lines[:SHOWN_DIFF_LINES]
    ]
    if len(lines) > SHOWN_DIFF_LINES:
        shown.append(f"… {len(lines) - SHOWN_DIFF_LINES:,} more lines (--json shows them all)")
    return "\n".join(shown)


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
        # One subject for every `what` ("the status", "the warnings"): no agreement to get
        # wrong.
        f"{what}: the stored value is not what it is derived from",
        json_diff(recorded, recomputed, where),
    )


# ------------------------------------------------------------------ checks ---


def check_digests(session: Session) -> list[Difference]:
    out: list[Difference] = []
    for i, ex in enumerate(session.exchanges):
        computed = exchange_digest(ex)
        if computed != ex.digest:
            where = f"exchanges[{i}]"
            covers = (
                "the whole request and its params"
                if digest_scheme(ex.digest) == 2
                else ", ".join(DIGEST_KEYS)
            )
            out.append(
                Difference(
                    f"{where}.request",
                    "digest",
                    f"the stored request of call #{i} ({ex.stage}) does not match its "
                    f"stored digest: either the request, its parameters or the digest was "
                    f"changed (the digest covers {covers})",
                    digest_diff(ex.digest, computed, where, "digest of the stored request"),
                )
            )
    return out


def rerun_search(
    call: SearchCall, catalog: Catalog, backend: RetrievalBackend
) -> tuple[SearchResult, ...]:
    """What `backend` returns today for a recorded call, in the recorded result shape."""
    queries = list(call.searches)
    if call.kind == "discover":
        found = backend.discover(catalog, queries)
        return tuple(SearchResult(id=s.id, name=s.name, content=s.content) for s in found)
    loaded = list(call.already_loaded or ())
    return tuple(
        SearchResult(id=m.id, content=m.content) for m in backend.recall(catalog, queries, loaded)
    )


def search_difference(
    where: str, call: SearchCall, recomputed: Sequence[SearchResult]
) -> Difference | None:
    recorded = to_json_value(call.results)
    searched = to_json_value(tuple(recomputed))
    if recorded == searched:
        return None
    rec_ids = list(call.result_ids)
    new_ids = [r.id for r in recomputed]
    what = (
        "the same entries with other content"
        if rec_ids == new_ids
        else f"entries {new_ids} instead of the recorded {rec_ids}"
    )
    label = f"{call.kind}({json.dumps(list(call.searches), ensure_ascii=False)})"
    return Difference(
        f"{where}.results",
        "search",
        f"{label} searched again on the recorded catalog finds {what}",
        json_diff(recorded, searched, f"{where}.results", ("recorded", "searched")),
    )


def check_searches(session: Session, backend: RetrievalBackend) -> list[Difference]:
    catalog = session.catalog.catalog
    out: list[Difference] = []
    for fw in session.forwards:
        for j, call in enumerate(fw.search_calls):
            if is_host_search(call):
                continue  # an app's own search callback answered: shown as recorded
            where = f"forwards[{fw.index}].searches[{j}]"
            diff = search_difference(where, call, rerun_search(call, catalog, backend))
            if diff is not None:
                out.append(diff)
    return out


def _range_difference(where: str, fw: Forward, mine: Sequence[Exchange]) -> Difference | None:
    if not mine:
        return None
    recorded = to_json_value(fw.exchange_range)
    return derived(
        f"{where}.exchange_range", recorded, [mine[0].index, mine[-1].index + 1], "the call range"
    )


def _map_differences(
    where: str,
    fw: Forward,
    mine: Sequence[Exchange],
    previous_after: JsonObject | None,
    claimed: bool = True,
) -> list[Difference | None]:
    """The map chain and the update record of one forward. `claimed`: the file holds an
    update record (a TypeScript app's recording leaves it to readers: then only what Ax
    itself reported is compared with the studio's reading)."""
    out: list[Difference | None] = []
    before, after = fw.context_map_before, fw.context_map_after
    if fw.index > 0 and previous_after is not None:
        out.append(
            derived(
                f"{where}.context_map_before",
                before,
                previous_after,
                "the map a forward starts from (the previous forward's map after)",
            )
        )
    recomputed = describe_update(mine, before, after)
    out.extend(
        Difference(
            f"{where}.context_map_update",
            "derived",
            f"the context-map update read from the map calls disagrees with Ax: {problem}",
        )
        for problem in update_disagreements(recomputed, fw.context_map_update_ax)
    )
    if claimed:
        recorded = fw.context_map_update
        out.append(
            derived(
                f"{where}.context_map_update",
                to_json_value(recorded),
                comparable_update(recorded, recomputed),
                "the context-map update record",
            )
        )
    return out


def _snapshot_difference(session: Session) -> Difference | None:
    if leaves_derived(session, "contextMapSnapshots"):
        return None  # an app's recording that leaves them to readers claims none
    stored = session.map_snapshots or ()
    recomputed: list[JsonValue] = []
    for i, snap in enumerate(map_snapshots(forwards_read(session))):
        value = snap.to_json()
        old = stored[i].update if i < len(stored) else None
        if snap.update is not None and old is not None and not old.records_evictions:
            # an entry written before evictions were recorded: compared without them
            value["update"] = comparable_update(old, snap.update)
        recomputed.append(value)
    return derived(
        "contextMapSnapshots",
        to_json_value(session.map_snapshots),
        recomputed,
        "the context-map snapshots",
    )


def _map_settings_differences(session: Session) -> list[Difference | None]:
    """A version 2 file says which map settings applied (`context_map_settings`): the
    record must follow from its rule, the agent's contextMap and the carried map, and
    every map state of the session must hold those settings."""
    config = session.agent.config
    settings = config.context_map if config is not None else None
    record = session.context_map_settings
    if session.version < 2 or settings is None:
        return []
    if record is None:
        return [
            Difference(
                "context_map_settings",
                "derived",
                "the agent has a context map, but the file does not say which map settings "
                "applied (the agent's or the carried map's)",
            )
        ]
    effective = effective_settings(record.rule, settings, record.carried)
    out: list[Difference | None] = [
        derived(
            "context_map_settings.effective",
            to_json_value(record.effective),
            effective.to_json(),
            f"the context-map settings that applied (rule '{record.rule}', the agent's "
            "contextMap and the carried map)",
        )
    ]
    for k, fw in enumerate(session.forwards):
        for key, state in (
            ("context_map_before", fw.context_map_before),
            ("context_map_after", fw.context_map_after),
        ):
            found = carried_settings(state) if fw.ran else None
            if found is not None:
                out.append(
                    derived(
                        f"forwards[{k}].{key}",
                        found.to_json(),
                        record.effective.to_json(),
                        "the settings in the map state (they must be the ones that applied)",
                    )
                )
    return out


def check_derived(session: Session) -> list[Difference]:
    out: list[Difference | None] = []
    for i, ex in enumerate(session.exchanges):
        if ex.response is not None or ex.has_key("usage"):
            out.append(
                derived(
                    f"exchanges[{i}].usage",
                    to_json_value(ex.usage),
                    usage_of_response(ex.response),
                    "the token usage",
                )
            )
    has_map = session.agent.has_context_map
    previous_after: JsonObject | None = None
    for k, fw in enumerate(session.forwards):
        if not fw.ran:
            continue
        where = f"forwards[{k}]"
        mine = session.exchanges_of(fw.index)
        out.append(_range_difference(where, fw, mine))
        if is_app_session(session) and fw.trace is None:
            # TypeScript Ax has no trace: the app's recorder saw the turns; each must
            # point at the actor call that wrote its code.
            out.extend(
                Difference(f"{where}.turns[{j}]", "derived", f"the actor turn {problem}")
                for j, problem in turn_links(fw, mine)
            )
        else:
            recomputed_turns = [
                t.to_json() for t in forward_turns(session.version, fw.trace, mine, fw.error)
            ]
            out.append(
                derived(
                    f"{where}.turns", to_json_value(fw.turns), recomputed_turns, "the actor turns"
                )
            )
        if has_map:
            claimed = not leaves_update(session, fw)
            out.extend(_map_differences(where, fw, mine, previous_after, claimed))
            previous_after = fw.context_map_after
    if has_map:
        out.append(_snapshot_difference(session))
    out.extend(_map_settings_differences(session))
    if not leaves_derived(session, "warnings"):
        config = session.agent.config
        expected = settings_warnings(
            session.context_map_settings, config.context_map if config is not None else None
        ) + map_warnings(forwards_read(session))
        warnings = to_json_value(session.warnings)
        out.append(derived("warnings", warnings, expected, "the warnings"))
    found, problems = call_claims(session)
    out += [
        derived(where, recorded, recomputed, what) for where, what, recorded, recomputed in found
    ]
    out += [Difference(where, "derived", message) for where, message in problems]
    failed = session.failed_forward
    out.append(
        derived("status", session.status, "incomplete" if failed else "complete", "the status")
    )
    out.append(
        derived(
            "error",
            to_json_value(session.error),
            to_json_value(failed.error) if failed else None,
            "the error",
        )
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
    #: What a clean report guarantees for this file, and what it does not check.
    coverage: Coverage | None = None

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
            **coverage_json(self.coverage),
        }

    def render(self) -> str:
        covered = render_coverage(self.coverage) if self.coverage is not None else ""
        return self._verdict() + covered

    def _verdict(self) -> str:
        if self.ok:
            host = (
                f" ({self.host_searches} more were answered by the app's own search callback "
                "and are shown as recorded)"
                if self.host_searches
                else ""
            )
            return (
                f"verified: {self.calls} stored requests match their digests, "
                f"{_searches(self.searches - self.host_searches)} the recorded results on "
                f"the recorded catalog{host}, every derived field matches "
                f"({self.duration_ms / 1000:.2f} s; the agent was not run: `axmem replay` "
                "checks the prompts)\n"
            )
        return render_differences(f"DIFFERENT: {self.session_id}", self.differences)


def _searches(n: int) -> str:
    return "1 search gives" if n == 1 else f"{n} searches give"


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
