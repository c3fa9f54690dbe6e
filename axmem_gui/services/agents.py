"""Agent configs of a workspace as use cases: list, show, add, edit, remove, each checked
(`agent_config_from_json`) and each write guarded by the config's revision, so an edit made
from a stale copy (another window, another process, an undo after a CLI change) is refused
with a clear message instead of overwriting newer work.

Used by `axmem agents …` (JSON in and out) and by the GUI's undoable agent commands.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.ax.profile import TS_PROFILE, load_profile
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.session.signature import SignatureRefusal, ts_signature_refusals
from axmem_gui.engine.agent_factory import axllm_signature_refusal
from axmem_gui.services.files import read_utf8_file
from axmem_gui.store import Workspace


def signature_refusals(signature: str) -> list[SignatureRefusal]:
    """Which runtime refuses an agent signature, and why: @ax-llm/ax (a TypeScript app the
    agent may move to; its first refusal is the one it throws) and axllm (the studio's own
    runs). Empty when both build it."""
    refusals = ts_signature_refusals(signature, load_profile(TS_PROFILE))
    axllm_refusal = axllm_signature_refusal(signature)
    return [*refusals, *([axllm_refusal] if axllm_refusal is not None else [])]


def _runtime_checked(value: Mapping[str, Any]) -> list[dict[str, str]]:
    """A checked config's signature against both runtimes: refused (InputError) when
    axllm, which runs it here, refuses it; else what @ax-llm/ax refuses in it (stored
    anyway: the studio runs it, a TypeScript app would not)."""
    refusals = signature_refusals(str(value["signature"]))
    for refusal in refusals:
        if refusal.runtime.startswith("axllm"):
            raise InputError(f"agent '{value['name']}': {refusal}; the studio runs agents with it")
    return [r.to_json() for r in refusals]


def checked_config(value: Any, source: str) -> dict[str, Any]:
    """The config as stored: validated, in its canonical JSON form."""
    if not isinstance(value, Mapping):
        raise InputError(f"{source}: an agent config must be a JSON object")
    return agent_config_from_json(copy.deepcopy(dict(value)), source).to_json()


def config_from_text(text: str, source: str) -> dict[str, Any]:
    """An agent config from JSON text: the config itself, or a whole `agents show`
    document (`{"name", "revision", "config"}`), so show | edit round-trips."""
    value = jsontext.loads(text, source)  # depth and number limits before parsing
    if isinstance(value, Mapping) and isinstance(value.get("config"), Mapping):
        value = value["config"]
    return checked_config(value, source)


def read_config_file(path: Path) -> dict[str, Any]:
    return config_from_text(read_utf8_file(path, "agent config file"), str(path))


def list_agents(ws: Workspace) -> list[dict[str, Any]]:
    out = []
    for name in ws.agents.list():
        doc = ws.agents.document(name)
        if doc is None:
            continue
        data = doc.data if isinstance(doc.data, Mapping) else {}
        out.append(
            {
                "name": name,
                "revision": doc.revision,
                "signature": data.get("signature"),
                "updated_at": doc.updated_at,
            }
        )
    return out


def show_agent(ws: Workspace, name: str) -> dict[str, Any]:
    doc = ws.agents.document(name)
    if doc is None:
        known = ", ".join(ws.agents.list()) or "none"
        raise InputError(f"no agent named '{name}' in {ws.path} (agents: {known})")
    return {"name": name, "revision": doc.revision, "config": doc.data}


def _revision(ws: Workspace, name: str) -> int | None:
    doc = ws.agents.document(name)
    return None if doc is None else doc.revision


def add_agent(ws: Workspace, config: Mapping[str, Any]) -> dict[str, Any]:
    """Store a new agent config (its `name` is the key); refused if the name is taken."""
    value = checked_config(config, "agent config")
    refusals = _runtime_checked(value)
    name = str(value["name"])
    with ws.transaction():
        if ws.agents.document(name) is not None:
            raise InputError(f"an agent named '{name}' already exists (edit it instead)")
        revision = ws.agents.save(name, value, expected_revision=0)
    return {"name": name, "revision": revision, "config": value, "runtimeRefusals": refusals}


def edit_agent(
    ws: Workspace, name: str, config: Mapping[str, Any], expected_revision: int | None
) -> dict[str, Any]:
    """Replace agent `name` with `config` (a new `name` in it renames the agent). With
    `expected_revision`, refused when the stored config has moved on since."""
    value = checked_config(config, "agent config")
    refusals = _runtime_checked(value)
    new_name = str(value["name"])
    with ws.transaction():
        actual = _revision(ws, name)
        if actual is None:
            raise InputError(f"no agent named '{name}' in {ws.path}")
        if expected_revision is not None and actual != expected_revision:
            raise InputError(
                f"agent '{name}' changed since revision {expected_revision} (it is at "
                f"revision {actual}); show it again and redo the edit"
            )
        if new_name != name:
            if ws.agents.document(new_name) is not None:
                raise InputError(f"cannot rename '{name}' to '{new_name}': that name is taken")
            ws.agents.delete(name)
            revision = ws.agents.save(new_name, value, expected_revision=0)
        else:
            revision = ws.agents.save(name, value, expected_revision=actual)
    return {"name": new_name, "revision": revision, "config": value, "runtimeRefusals": refusals}


def remove_agent(ws: Workspace, name: str, expected_revision: int | None = None) -> None:
    with ws.transaction():
        actual = _revision(ws, name)
        if actual is None:
            raise InputError(f"no agent named '{name}' in {ws.path}")
        if expected_revision is not None and actual != expected_revision:
            raise InputError(
                f"agent '{name}' changed since revision {expected_revision} (it is at "
                f"revision {actual}); not removed"
            )
        ws.agents.delete(name)


def replace_agent(
    ws: Workspace,
    before: tuple[str, int] | None,
    after: Mapping[str, Any] | None,
) -> int | None:
    """One undo/redo step of the GUI: remove `before` (name, revision it must still have)
    and write `after` (a config), in one transaction. Returns the new revision of `after`.
    Raises InputError when `before` is not as expected (changed elsewhere meanwhile)."""
    with ws.transaction():
        if before is not None:
            name, expected = before
            actual = _revision(ws, name)
            if actual != expected:
                now = "removed" if actual is None else f"at revision {actual}"
                raise InputError(
                    f"agent '{name}' changed outside this window (expected revision "
                    f"{expected}, it is {now}); the step was not applied"
                )
            if after is None or str(after.get("name")) != name:
                ws.agents.delete(name)
        if after is None:
            return None
        value = checked_config(after, "agent config")
        target = str(value["name"])
        current = _revision(ws, target)
        if before is None or target != before[0]:
            if current is not None:
                raise InputError(f"an agent named '{target}' already exists")
            return ws.agents.save(target, value, expected_revision=0)
        return ws.agents.save(target, value, expected_revision=current)
