"""Agent configs of a workspace as use cases: list, show, add, edit, remove, each checked
(`agent_config_from_json`) and each write guarded by the config's revision, so an edit made
from a stale copy (another window, another process, an undo after a CLI change) is refused
with a clear message instead of overwriting newer work.

`AgentService` is the one owner of a workspace's agent configs: `axmem agents …` (JSON in
and out) and the GUI's undoable agent commands both call it. It parses every stored config
where it leaves the store (a config the parser refuses is still listed, with the problem),
so nothing above it reads a stored dict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axmem_gui.core.ax.profile import TS_PROFILE, load_profile
from axmem_gui.core.errors import InputError
from axmem_gui.core.records import JsonObject
from axmem_gui.core.session.agent_config import (
    AgentConfig,
    agent_config_from_text,
    agent_config_value,
)
from axmem_gui.core.session.signature import SignatureRefusal, ts_signature_refusals
from axmem_gui.services.files import read_utf8_file
from axmem_gui.store import Workspace


def signature_refusals(signature: str) -> list[SignatureRefusal]:
    """Which runtime refuses an agent signature, and why: @ax-llm/ax (a TypeScript app the
    agent may move to; its first refusal is the one it throws) and axllm (the studio's own
    runs). Empty when both build it."""
    # (axllm is imported when a signature is checked, not when the app starts)
    from axmem_gui.engine.agent_factory import axllm_signature_refusal

    refusals = ts_signature_refusals(signature, load_profile(TS_PROFILE))
    axllm_refusal = axllm_signature_refusal(signature)
    return [*refusals, *([axllm_refusal] if axllm_refusal is not None else [])]


def runnable_here(config: AgentConfig) -> list[SignatureRefusal]:
    """The config's signature against both runtimes: InputError when axllm, which runs it
    here, refuses it; else what @ax-llm/ax refuses in it (stored anyway: the studio runs
    it, a TypeScript app would not)."""
    refusals = signature_refusals(config.signature)
    for refusal in refusals:
        if refusal.runtime.startswith("axllm"):
            raise InputError(f"agent '{config.name}': {refusal}; the studio runs agents with it")
    return refusals


def checked_config(value: Any, source: str) -> AgentConfig:
    """An agent config read from JSON (InputError names the field that is wrong)."""
    return agent_config_value(value, source)


def config_from_text(text: str, source: str) -> AgentConfig:
    """An agent config from JSON text: the config itself, or a whole `agents show`
    document (`{"name", "revision", "config"}`), so show | edit round-trips."""
    return agent_config_from_text(text, source)


def read_config_file(path: Path) -> AgentConfig:
    return config_from_text(read_utf8_file(path, "agent config file"), str(path))


@dataclass(frozen=True)
class StoredAgent:
    """An agent config as the workspace holds it: its reading (`config`), or the
    `problem` that keeps the stored JSON from being one (written by hand, or by another
    version); `stored` is that JSON, for `agents show`."""

    name: str
    revision: int
    updated_at: str
    config: AgentConfig | None
    problem: str = ""
    stored: JsonObject = field(default_factory=dict, repr=False)

    @property
    def signature(self) -> str | None:
        return self.config.signature if self.config is not None else None

    def runnable(self) -> AgentConfig:
        """The config, or an InputError saying why it cannot run."""
        if self.config is None:
            raise InputError(self.problem)
        return self.config

    def show_json(self) -> dict[str, Any]:
        return {"name": self.name, "revision": self.revision, "config": self.stored}


def _nothing_changed() -> None:
    pass


class AgentService:
    """The agent configs of one open workspace. Every write is one transaction, checks
    the revision it was given, and ends with `changed()`, the change notice."""

    def __init__(self, ws: Workspace, changed: Callable[[], None] = _nothing_changed) -> None:
        self._ws = ws
        self._changed = changed

    @property
    def read_only(self) -> bool:
        return bool(self._ws.read_only)

    # reads ------------------------------------------------------------------------
    def names(self) -> list[str]:
        return list(self._ws.agents.list())

    def find(self, name: str) -> StoredAgent | None:
        doc = self._ws.agents.document(name)
        if doc is None:
            return None
        data = doc.data if isinstance(doc.data, dict) else {}
        try:
            config: AgentConfig | None = checked_config(doc.data, f"{self._ws.path}: agent")
            problem = ""
        except InputError as exc:
            config, problem = None, str(exc)
        return StoredAgent(doc.name, doc.revision, doc.updated_at, config, problem, data)

    def get(self, name: str) -> StoredAgent:
        found = self.find(name)
        if found is None:
            known = ", ".join(self.names()) or "none"
            raise InputError(f"no agent named '{name}' in {self._ws.path} (agents: {known})")
        return found

    def config(self, name: str) -> AgentConfig:
        """The agent config `name`, ready to run (InputError names what is wrong)."""
        return self.get(name).runnable()

    def all(self) -> list[StoredAgent]:
        return [a for name in self.names() if (a := self.find(name)) is not None]

    def _revision(self, name: str) -> int | None:
        doc = self._ws.agents.document(name)
        return None if doc is None else doc.revision

    # writes -----------------------------------------------------------------------
    def add(self, config: AgentConfig) -> StoredAgent:
        """Store a new agent config (its `name` is the key); refused if the name is taken
        or axllm cannot build it (`runnable_here`)."""
        runnable_here(config)
        value = config.to_json()
        with self._ws.transaction():
            if self._ws.agents.document(config.name) is not None:
                raise InputError(f"an agent named '{config.name}' already exists (edit it instead)")
            self._ws.agents.save(config.name, value, expected_revision=0)
            stored = self.get(config.name)
        self._changed()
        return stored

    def edit(self, name: str, config: AgentConfig, expected_revision: int | None) -> StoredAgent:
        """Replace agent `name` with `config` (a new name in it renames the agent). With
        `expected_revision`, refused when the stored config has moved on since; refused
        when axllm cannot build it (`runnable_here`)."""
        runnable_here(config)
        value = config.to_json()
        with self._ws.transaction():
            actual = self._revision(name)
            if actual is None:
                raise InputError(f"no agent named '{name}' in {self._ws.path}")
            if expected_revision is not None and actual != expected_revision:
                raise InputError(
                    f"agent '{name}' changed since revision {expected_revision} (it is at "
                    f"revision {actual}); show it again and redo the edit"
                )
            if config.name != name:
                if self._ws.agents.document(config.name) is not None:
                    raise InputError(
                        f"cannot rename '{name}' to '{config.name}': that name is taken"
                    )
                self._ws.agents.delete(name)
                self._ws.agents.save(config.name, value, expected_revision=0)
            else:
                self._ws.agents.save(name, value, expected_revision=actual)
            stored = self.get(config.name)
        self._changed()
        return stored

    def remove(self, name: str, expected_revision: int | None = None) -> None:
        with self._ws.transaction():
            actual = self._revision(name)
            if actual is None:
                raise InputError(f"no agent named '{name}' in {self._ws.path}")
            if expected_revision is not None and actual != expected_revision:
                raise InputError(
                    f"agent '{name}' changed since revision {expected_revision} (it is at "
                    f"revision {actual}); not removed"
                )
            self._ws.agents.delete(name)
        self._changed()

    def replace(
        self, before: tuple[str, int] | None, after: AgentConfig | StoredAgent | None
    ) -> int | None:
        """One undo/redo step of the GUI: remove `before` (name, revision it must still
        have) and write `after`, in one transaction: a config, or a stored agent as it
        was (an undo writes back even one the parser refuses, as it was). Returns the new
        revision of `after`. Raises InputError when `before` is not as expected (changed
        elsewhere meanwhile)."""
        try:
            with self._ws.transaction():
                return self._replace(before, after)
        finally:
            self._changed()

    def _replace(
        self, before: tuple[str, int] | None, after: AgentConfig | StoredAgent | None
    ) -> int | None:
        if before is not None:
            name, expected = before
            actual = self._revision(name)
            if actual != expected:
                now = "removed" if actual is None else f"at revision {actual}"
                raise InputError(
                    f"agent '{name}' changed outside this window (expected revision "
                    f"{expected}, it is {now}); the step was not applied"
                )
            if after is None or after.name != name:
                self._ws.agents.delete(name)
        if after is None:
            return None
        target = after.name
        value = _stored_json(after)
        current = self._revision(target)
        if before is None or target != before[0]:
            if current is not None:
                raise InputError(f"an agent named '{target}' already exists")
            return self._ws.agents.save(target, value, expected_revision=0)
        return self._ws.agents.save(target, value, expected_revision=current)


def _stored_json(agent: AgentConfig | StoredAgent) -> dict[str, Any]:
    if isinstance(agent, AgentConfig):
        return agent.to_json()
    return agent.config.to_json() if agent.config is not None else dict(agent.stored)
