"""Store layer: the workspace SQLite file, its migrations and typed repositories.

The only layer that speaks SQL."""

from axmem_gui.store.repositories import ConflictError, ReadOnlyError
from axmem_gui.store.workspace import WORKSPACE_SUFFIX, Workspace, WorkspaceCounts

__all__ = ["WORKSPACE_SUFFIX", "ConflictError", "ReadOnlyError", "Workspace", "WorkspaceCounts"]
