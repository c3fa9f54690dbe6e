"""Sessions recorded by an app's own agent (`origin.kind: "app"`, docs/recorders.md).

The recorders (`@axmem/ax-recorder` for TypeScript, `axmem_gui.recorder` for Python) write
the studio's format, with what only an app has: function-tool calls, searches answered by
the app's own host callbacks, and (TypeScript) the Ax package's version instead of axllm's.
This module holds what the studio does differently with them:

- a TypeScript recording leaves out the fields the studio derives from the map exchanges
  and states (each forward's `context_map_update`, `contextMapSnapshots`, `warnings`):
  readers derive them here (`map_update_of`, `forwards_read`, `warnings_read`), with the
  same functions the studio's own recorder uses. Only for reading: the session keeps what
  its file holds, so an import then an export is the same file, byte for byte;
- TypeScript Ax has no trace: its actor turns come from the app's `actorTurnCallback`, and
  `verify` checks that each one points at the model call that wrote its code;
- the studio cannot run the app's agent (its functions and host code are not here): replay
  and rerun say so and point to the replay-in-your-tests mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from axmem_gui.core.records import JsonValue
from axmem_gui.core.session.contextmap_update import describe_update
from axmem_gui.core.session.derive import map_snapshots, map_warnings
from axmem_gui.core.session.map_records import MapSnapshot, MapUpdate
from axmem_gui.core.session.model import Exchange, Forward, SearchCall, Session
from axmem_gui.core.session.payloads import actor_code, ax_update_report

APP = "app"
#: What a search's `source` says: the agent's own catalog search, or the app's callback.
CATALOG, HOST = "catalog", "host"
#: The session keys a TypeScript recording leaves to readers (and its forwards'
#: `context_map_update`): `verify` has nothing of the file's to compare when one is absent.
DERIVED_KEYS = ("contextMapSnapshots", "warnings")


def is_app_session(session: Session) -> bool:
    return session.origin is not None and session.origin.kind == APP


def app_language(session: Session) -> str:
    """ "typescript" or "python" (what the file says; "typescript" when it names the Ax
    package rather than axllm)."""
    language = session.origin.language if session.origin is not None else None
    if language:
        return language
    return "typescript" if session.versions.axllm is None else "python"


def runtime_label(session: Session) -> str:
    """`@ax-llm/ax 24.0.21` or `axllm 25.4.6`: what ran the recorded agent."""
    return session.versions.runtime


def not_here(session: Session, action: str) -> str:
    """Why the studio cannot `action` ("replay", "rerun") an app's session, and what to
    do instead."""
    if app_language(session) == "typescript":
        how = "with AxSessionReplayer from @axmem/ax-recorder"
    else:
        how = "with SessionReplayer or the axsession_replay pytest fixture of axmem_gui.recorder"
    return (
        f"session {session.id} was recorded by your app ({app_language(session)}, "
        f"{runtime_label(session)}): the studio cannot {action} it, because your agent's "
        f"code (its function tools and callbacks) is not here; replay it in your own tests "
        f"{how} (docs/recorders.md)"
    )


def is_host_search(call: SearchCall) -> bool:
    """Answered by the app's own onSkillsSearch/onMemoriesSearch: shown as recorded,
    never searched again here."""
    return call.by_host


# --- the fields a TypeScript recording leaves to readers ---------------------------------


def has_map(session: Session) -> bool:
    return any(f.context_map_before or f.context_map_after for f in session.forwards)


def leaves_update(session: Session, fw: Forward) -> bool:
    """Whether `fw` ran in an app's recording that left its map update to readers."""
    return is_app_session(session) and fw.ran and not fw.has_key("context_map_update")


def leaves_derived(session: Session, key: str) -> bool:
    """Whether an app's recording left the session's derived `key` (DERIVED_KEYS) out."""
    return is_app_session(session) and not session.has_key(key)


def map_update_of(session: Session, fw: Forward) -> MapUpdate | None:
    """The forward's context-map update record: the recorded one, or the one read from its
    map calls and map states when the app's recorder left it out (as the studio's own
    recorder reads it)."""
    if not leaves_update(session, fw):
        return fw.context_map_update
    if not has_map(session):
        return None
    mine = session.exchanges_of(fw.index)
    return describe_update(mine, fw.context_map_before, fw.context_map_after)


def needs_exchanges(session: Session) -> bool:
    """Whether reading the maps of `session` (a head, read without its model calls) needs
    the model calls: an app's recording left a map update to be read from them."""
    return has_map(session) and any(leaves_update(session, f) for f in session.forwards)


def forwards_read(session: Session) -> tuple[Forward, ...]:
    """The forwards with every map update a reader sees (`map_update_of`). Only for
    reading (snapshots, warnings, views): never written back."""
    if not is_app_session(session):
        return session.forwards
    return tuple(
        replace(f, context_map_update=map_update_of(session, f)) if leaves_update(session, f) else f
        for f in session.forwards
    )


def snapshots_read(session: Session) -> list[MapSnapshot]:
    """`contextMapSnapshots` as readers derive it (the file's copy is `verify`'s)."""
    return map_snapshots(forwards_read(session)) if has_map(session) else []


def warnings_read(session: Session) -> tuple[str, ...]:
    """The session's warnings: the file's, or the ones derived when an app's recorder
    left them out."""
    if leaves_derived(session, "warnings"):
        return tuple(map_warnings(forwards_read(session)))
    return session.warning_list


# --- what verify checks in them ----------------------------------------------------------


def turn_links(forward: Forward, exchanges: Sequence[Exchange]) -> list[tuple[int, str]]:
    """Turns recorded by an app without a trace whose `call_index` does not point at the
    actor call that wrote their code: (turn number in the forward, what is wrong)."""
    by_index = {e.index: e for e in exchanges}
    problems = []
    for j, turn in enumerate(forward.turns or ()):
        call = by_index.get(turn.call_index) if turn.call_index is not None else None
        if call is None:
            problems.append((j, f"call #{turn.call_index} is not a model call of this forward"))
        elif call.stage != turn.stage:
            problems.append(
                (j, f"call #{call.index} is a {call.stage} call, the turn says {turn.stage}")
            )
        elif (actor_code(call.response) or "").strip() != turn.code.strip():
            problems.append((j, f"call #{call.index} did not write this code"))
    return problems


def update_disagreements(derived: MapUpdate | None, reported: JsonValue) -> list[str]:
    """Where the studio's reading of a forward's context-map update (`context_map_update`,
    from the two map calls and the map states) disagrees with what the Ax package itself
    reported to the app (`context_map_update_ax`, TypeScript's `onUpdate` result)."""
    report = ax_update_report(reported)
    if derived is None or report is None:
        return []
    out = []
    for key, mine, theirs in (
        ("status", derived.status, report.status),
        ("step", derived.step, report.step),
    ):
        if theirs is not None and mine != theirs:
            out.append(f"{key} is {mine!r} here, Ax reported {theirs!r}")
    added = len(derived.added or ()) + len(derived.added_evicted or ())
    adds = report.operation_kinds.count("ADD")
    if added != adds:
        out.append(f"{added} item(s) added here, Ax applied {adds} ADD operation(s)")
    replaced = sorted(report.replaced)
    changed = sorted(derived.changed or ())
    if replaced and changed != replaced:
        out.append(f"items {changed} changed here, Ax replaced {replaced}")
    return out
