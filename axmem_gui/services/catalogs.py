"""Where a command's catalog comes from: a catalog JSON file or a workspace."""

from __future__ import annotations

from pathlib import Path

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.formats import catalog_from_json_text
from axmem_gui.services.files import read_utf8_file


def read_catalog_file(path: Path) -> Catalog:
    """Read an Ax catalog JSON file; every failure is an InputError naming the file."""
    return catalog_from_json_text(read_utf8_file(path, "catalog file"), str(path))


def resolve_catalog(catalog_path: Path | None, workspace_path: Path | None) -> Catalog:
    """The catalog named by `--catalog FILE` or, failing that, by `--workspace PATH`
    (the default workspace when both are absent)."""
    if catalog_path is not None:
        return read_catalog_file(catalog_path)
    from axmem_gui.services.workspace import load_workspace_catalog

    return load_workspace_catalog(workspace_path)
