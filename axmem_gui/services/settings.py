"""The workspace settings aggregate: read typed, written in one transaction, announced.

Settings have no revisions in the store: the last write wins, which is what a preference
wants (the budget a user just typed is the one meant). A write reads the stored values and
writes only the keys that differ, in one immediate transaction, so two writers never
interleave half a change.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.settings import (
    QUARANTINE_KEY,
    SETTING_KEYS,
    WorkspaceSettings,
    clamp_budget,
    settings_from_values,
    settings_to_values,
)
from axmem_gui.services.aggregates import Change, Notices

if TYPE_CHECKING:
    from axmem_gui.store import Workspace


class SettingsService:
    def __init__(self, store: Workspace, notices: Notices | None = None) -> None:
        self._store = store
        self._notices = notices if notices is not None else Notices()

    def read(self) -> WorkspaceSettings:
        repo = self._store.settings
        return settings_from_values(
            {key: value for key in SETTING_KEYS if (value := repo.get(key)) is not None}
        )

    def write(self, settings: WorkspaceSettings) -> WorkspaceSettings:
        """Store `settings` (a None setting keeps what is stored); returns what is stored
        now. Raises WorkspaceError (nothing written) for a read-only or busy file."""
        repo = self._store.settings
        values = settings_to_values(settings)
        with self._store.transaction(immediate=True):
            changed = [key for key, value in values.items() if repo.get(key) != value]
            for key in changed:
                repo.set(key, values[key])
        if changed:
            self._notices.publish(Change("settings", tuple(changed), False))
        return self.read()

    def set_lint_budget(self, tokens: int) -> int:
        """Store the lint token budget (clamped to its range); returns what was stored."""
        stored = self.write(replace(self.read(), lint_budget_tokens=clamp_budget(tokens)))
        return stored.lint_budget_tokens

    def set_last_provider(self, provider: ProviderSettings) -> None:
        self.write(replace(self.read(), last_provider=provider))

    def set_quarantine(self, session_id: str, why: str) -> None:
        """Put session `session_id` in quarantine, saying why; "" takes it out."""
        with self._store.transaction(immediate=True):
            marks = dict(self.read().quarantine)
            if why:
                marks[session_id] = why
            else:
                marks.pop(session_id, None)
            if marks:
                self.write(replace(self.read(), quarantine=marks))
            elif self._store.settings.get(QUARANTINE_KEY) is not None:
                # (write() keeps what is stored for a setting it does not write)
                self._store.settings.set(QUARANTINE_KEY, {})
                self._notices.publish(Change("settings", (QUARANTINE_KEY,), False))
