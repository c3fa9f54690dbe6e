"""Workspace settings: the choices that travel with the workspace file (per-user, per-
machine ones live in QSettings, `ui/settings.py`).

Declared and typed: `WorkspaceSettings` is read once from the stored values by
`settings_from_values` and written back by `settings_to_values`, the one reader and the
one writer of those keys. A stored value that does not fit (another version or program
wrote it) reads as the default: a setting never stops a workspace from opening.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from axmem_gui.core.errors import InputError
from axmem_gui.core.lint.model import DEFAULT_BUDGET_TOKENS
from axmem_gui.core.providers import ProviderSettings

#: The token budget lint checks the `### Available Skills` index against.
LINT_BUDGET_KEY = "lint.budgetTokens"
#: The provider of the last live run (its choices; never a key).
LAST_PROVIDER_KEY = "sessions.last_provider"
#: The sessions in quarantine, {id: why}: imported from files whose `verify` failed, their
#: code is not run until the user trusts them.
QUARANTINE_KEY = "sessions.quarantine"
SETTING_KEYS = (LINT_BUDGET_KEY, LAST_PROVIDER_KEY, QUARANTINE_KEY)
BUDGET_RANGE = (50, 1_000_000)


def clamp_budget(value: object) -> int:
    """A usable budget from a stored or typed value (anything odd: the default)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return DEFAULT_BUDGET_TOKENS
    try:
        number = int(value)
    except ValueError:
        return DEFAULT_BUDGET_TOKENS
    low, high = BUDGET_RANGE
    return min(max(number, low), high)


@dataclass(frozen=True, slots=True)
class WorkspaceSettings:
    lint_budget_tokens: int = DEFAULT_BUDGET_TOKENS
    last_provider: ProviderSettings | None = None
    quarantine: Mapping[str, str] = field(default_factory=dict)


def _provider(value: object) -> ProviderSettings | None:
    if not isinstance(value, Mapping):
        return None
    try:
        return ProviderSettings.from_json(value)
    except (InputError, ValueError, TypeError):
        return None


def settings_from_values(values: Mapping[str, object]) -> WorkspaceSettings:
    """The settings of the stored values (key: decoded JSON; absent keys: defaults)."""
    return WorkspaceSettings(
        lint_budget_tokens=clamp_budget(values.get(LINT_BUDGET_KEY, DEFAULT_BUDGET_TOKENS)),
        last_provider=_provider(values.get(LAST_PROVIDER_KEY)),
        quarantine=_quarantine(values.get(QUARANTINE_KEY)),
    )


def _quarantine(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, str) and v}


def settings_to_values(settings: WorkspaceSettings) -> dict[str, object]:
    """The values to store (a setting at None is not written)."""
    out: dict[str, object] = {LINT_BUDGET_KEY: clamp_budget(settings.lint_budget_tokens)}
    if settings.last_provider is not None:
        out[LAST_PROVIDER_KEY] = settings.last_provider.to_json()
    if settings.quarantine:
        out[QUARANTINE_KEY] = dict(settings.quarantine)
    return out
