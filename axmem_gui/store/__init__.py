"""Store layer: the workspace SQLite file, its migrations and typed repositories.

The only layer that speaks SQL. Nothing above services sees what it defines: services
hand on the plain types of core (`core/catalog_rows.py`, `core/workspace.py`,
`core/errors.py`) and their own."""

from axmem_gui.store.workspace import Workspace

__all__ = ["Workspace"]
