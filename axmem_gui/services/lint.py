"""Lint use cases: lint the workspace, or any catalog file or skills folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import Problem, read_source
from axmem_gui.core.lint import LintOptions, LintReport, lint_catalog
from axmem_gui.services.workspace import load_workspace_catalog


@dataclass(frozen=True)
class LintRun:
    """A report, and the reader's warnings about the input (unknown keys and such)."""

    report: LintReport
    source: str
    input_warnings: tuple[Problem, ...] = ()


def read_catalog_for_lint(path: Path) -> tuple[Catalog, tuple[Problem, ...]]:
    """Any importable source (catalog JSON, TS module, JSON Lines, SKILL.md folders),
    keeping repeated ids so lint can report them. Unreadable input is an InputError."""
    src = read_source(path, keep_duplicates=True)
    if src.errors:
        lines = "\n".join(f"  {p}" for p in src.errors[:50])
        raise InputError(f"{path}: cannot lint, the input has problems:\n{lines}")
    warnings = tuple(p for p in src.problems if p.severity == "warning")
    return src.doc.catalog(), warnings


def lint_path(path: Path | str, options: LintOptions | None = None) -> LintRun:
    catalog, warnings = read_catalog_for_lint(Path(path))
    return LintRun(lint_catalog(catalog, options), str(path), warnings)


def lint_workspace(path: Path | str | None, options: LintOptions | None = None) -> LintRun:
    """The workspace at `path` (None: the default workspace)."""
    catalog = load_workspace_catalog(path)
    return LintRun(lint_catalog(catalog, options), str(path) if path else "default workspace")


def lint(
    catalog_path: Path | str | None,
    workspace_path: Path | str | None,
    options: LintOptions | None = None,
) -> LintRun:
    """`--catalog FILE` wins over `--workspace PATH` (as in the other commands)."""
    if catalog_path is not None:
        return lint_path(catalog_path, options)
    return lint_workspace(workspace_path, options)
