"""Lint use cases: lint the workspace, or any catalog file or skills folder."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import Problem, ReadLimits, read_source
from axmem_gui.core.formats.axjson import parse_json_text
from axmem_gui.core.formats.fileio import read_text_limited
from axmem_gui.core.formats.values import LONE_SURROGATE, catalog_from_value
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
    if src.errors and src.format == "ax-json" and all(_only_unstorable(p) for p in src.errors):
        # Lone surrogates are what Ax itself receives and cuts (half an emoji): the file
        # cannot go into a workspace, but it is linted as Ax reads it, the reason shown.
        value = parse_json_text(read_text_limited(path, ReadLimits().max_file_bytes))
        as_ax = catalog_from_value(value, str(path), "ax-json", keep_duplicates=True, as_ax=True)
        if not as_ax.errors:
            unstorable = tuple(replace(p, severity="warning") for p in src.errors)
            return as_ax.doc.catalog(), unstorable + _warnings(as_ax.problems)
    if src.errors:
        lines = "\n".join(f"  {p}" for p in src.errors[:50])
        raise InputError(f"{path}: cannot lint, the input has problems:\n{lines}")
    return src.doc.catalog(), _warnings(src.problems)


def _only_unstorable(problem: Problem) -> bool:
    return problem.message == LONE_SURROGATE


def _warnings(problems: tuple[Problem, ...]) -> tuple[Problem, ...]:
    return tuple(p for p in problems if p.severity == "warning")


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
