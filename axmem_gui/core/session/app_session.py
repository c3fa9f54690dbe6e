"""Sessions recorded by an app's own agent (`origin.kind: "app"`, docs/recorders.md).

The recorders (`@axmem/ax-recorder` for TypeScript, `axmem_gui.recorder` for Python) write
the studio's format, with what only an app has: function-tool calls, searches answered by
the app's own host callbacks, and (TypeScript) the Ax package's version instead of axllm's.
This module holds what the studio does differently with them:

- a TypeScript recording leaves out the fields the studio derives from the map exchanges
  and states (each forward's `context_map_update`, `contextMapSnapshots`, `warnings`):
  readers derive them here, with the same functions the studio's own recorder uses;
- TypeScript Ax has no trace: its actor turns come from the app's `actorTurnCallback`, and
  `verify` checks that each one points at the model call that wrote its code;
- the studio cannot run the app's agent (its functions and host code are not here): replay
  and rerun say so and point to the replay-in-your-tests mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from axmem_gui.core.session.contextmap_update import describe_update
from axmem_gui.core.session.derive import map_snapshots, map_warnings
from axmem_gui.core.session.views import actor_code

APP = "app"
#: What a search's `source` says: the agent's own catalog search, or the app's callback.
CATALOG, HOST = "catalog", "host"


def origin_of(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    origin = doc.get("origin")
    return origin if isinstance(origin, Mapping) else {}


def is_app_session(doc: Mapping[str, Any]) -> bool:
    return origin_of(doc).get("kind") == APP


def app_language(doc: Mapping[str, Any]) -> str:
    """ "typescript" or "python" (what the file says; "typescript" when it names the Ax
    package rather than axllm)."""
    language = origin_of(doc).get("language")
    if isinstance(language, str) and language:
        return language
    versions = doc.get("versions")
    return "typescript" if isinstance(versions, Mapping) and "ax" in versions else "python"


def runtime_label(doc: Mapping[str, Any]) -> str:
    """`@ax-llm/ax 24.0.21` or `axllm 25.4.6`: what ran the recorded agent."""
    versions = doc.get("versions") if isinstance(doc.get("versions"), Mapping) else {}
    assert isinstance(versions, Mapping)
    if "ax" in versions:
        return f"@ax-llm/ax {versions.get('ax')}"
    return f"axllm {versions.get('axllm')}"


def not_here(doc: Mapping[str, Any], action: str) -> str:
    """Why the studio cannot `action` ("replay", "rerun") an app's session, and what to
    do instead."""
    if app_language(doc) == "typescript":
        how = "with AxSessionReplayer from @axmem/ax-recorder"
    else:
        how = "with SessionReplayer or the axsession_replay pytest fixture of axmem_gui.recorder"
    return (
        f"session {doc.get('id')} was recorded by your app ({app_language(doc)}, "
        f"{runtime_label(doc)}): the studio cannot {action} it, because your agent's code "
        f"(its function tools and callbacks) is not here; replay it in your own tests {how} "
        "(docs/recorders.md)"
    )


def is_host_search(call: Mapping[str, Any]) -> bool:
    """Answered by the app's own onSkillsSearch/onMemoriesSearch: shown as recorded,
    never searched again here."""
    return call.get("source") == HOST


def complete_app_session(doc: dict[str, Any]) -> dict[str, Any]:
    """Derive the fields an app's recorder leaves out (see the module docstring); `doc` is
    returned, completed in place. A session of the studio's own is returned as it is."""
    if not is_app_session(doc):
        return doc
    forwards = [f for f in doc.get("forwards") or [] if isinstance(f, dict)]
    exchanges = [e for e in doc.get("exchanges") or [] if isinstance(e, Mapping)]
    has_map = any(f.get("context_map_before") or f.get("context_map_after") for f in forwards)
    for fw in forwards:
        if "context_map_update" in fw or fw.get("status") == "not_run":
            continue
        mine = [e for e in exchanges if e.get("forward") == fw.get("index")]
        before, after = fw.get("context_map_before"), fw.get("context_map_after")
        fw["context_map_update"] = describe_update(mine, before, after) if has_map else None
    if "contextMapSnapshots" not in doc:
        doc["contextMapSnapshots"] = map_snapshots(forwards) if has_map else []
    if "warnings" not in doc:
        doc["warnings"] = map_warnings(forwards)
    return doc


def turn_links(
    forward: Mapping[str, Any], exchanges: list[Mapping[str, Any]]
) -> list[tuple[int, str]]:
    """Turns recorded by an app without a trace whose `call_index` does not point at the
    actor call that wrote their code: (turn number in the forward, what is wrong)."""
    by_index = {e.get("index"): e for e in exchanges}
    problems = []
    for j, turn in enumerate(forward.get("turns") or []):
        if not isinstance(turn, Mapping):
            continue
        call = by_index.get(turn.get("call_index"))
        if call is None:
            problems.append(
                (j, f"call #{turn.get('call_index')} is not a model call of this forward")
            )
        elif call.get("stage") != turn.get("stage"):
            problems.append(
                (
                    j,
                    f"call #{call.get('index')} is a {call.get('stage')} call, "
                    f"the turn says {turn.get('stage')}",
                )
            )
        elif (actor_code(call.get("response")) or "").strip() != str(
            turn.get("code") or ""
        ).strip():
            problems.append((j, f"call #{call.get('index')} did not write this code"))
    return problems


def update_disagreements(derived: Any, reported: Any) -> list[str]:
    """Where the studio's reading of a forward's context-map update (`context_map_update`,
    from the two map calls and the map states) disagrees with what the Ax package itself
    reported to the app (`context_map_update_ax`, TypeScript's `onUpdate` result)."""
    if not isinstance(derived, Mapping) or not isinstance(reported, Mapping):
        return []
    out = []
    for key in ("status", "step"):
        if reported.get(key) is not None and derived.get(key) != reported.get(key):
            out.append(f"{key} is {derived.get(key)!r} here, Ax reported {reported.get(key)!r}")
    operations = [o for o in reported.get("operations") or [] if isinstance(o, Mapping)]
    kinds = [str(o.get("type", "")).upper() for o in operations]
    added = len(derived.get("added") or []) + len(derived.get("added_evicted") or [])
    if added != kinds.count("ADD"):
        out.append(f"{added} item(s) added here, Ax applied {kinds.count('ADD')} ADD operation(s)")
    replaced = sorted(
        str(o.get("itemId", o.get("item_id")))
        for o in operations
        if str(o.get("type", "")).upper() == "REPLACE"
    )
    changed = sorted(str(i) for i in derived.get("changed") or [])
    if replaced and changed != replaced:
        out.append(f"items {changed} changed here, Ax replaced {replaced}")
    return out
