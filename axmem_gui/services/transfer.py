"""Import and export use cases, shared by the CLI and the GUI.

Import is two steps so a dialog can show what will happen before it happens:

    plan = plan_import(ws, paths, policy="skip")        # reads files, writes nothing
    result = apply_import(ws, plan, progress=..., cancel=...)   # one transaction

`apply_import` refuses a plan with errors, re-checks that the entries it will replace did
not change since planning, and writes everything in one transaction: an error, a cancel or
a crash leaves the workspace as it was. `ImportResult.changes` lists each entry's value
before and after, which is what an undo step needs (`undo_import` does exactly that).

Progress callbacks get a `Progress(done, total, message)`; a cancel token is a
`threading.Event` (or anything with `is_set()`) or a no-argument callable returning True
to cancel. Both are plain Python so the GUI's task runner can wrap them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from axmem_gui.core.catalog import Catalog, EntryKind, Memory, Skill, plural
from axmem_gui.core.errors import AxmemError, InputError, WorkspaceError
from axmem_gui.core.formats import (
    CatalogDoc,
    FormatName,
    ImportedSkill,
    ImportPlan,
    Policy,
    Problem,
    ReadLimits,
    SourceCatalog,
    build_plan,
    extra_value,
    imported_from_extra,
    read_source,
    skills_dir_files,
    write_ax_json,
    write_jsonl,
    write_ts_module,
)
from axmem_gui.core.formats.fileio import human_size, too_large
from axmem_gui.core.formats.plan import PlanItem
from axmem_gui.core.formats.skillsdir import ExportRefused, OutputFile
from axmem_gui.core.jsout import encode_text
from axmem_gui.services.aggregates import WorkspaceAddress
from axmem_gui.services.catalog import Write
from axmem_gui.services.files import new_file_mode, write_file_atomic
from axmem_gui.services.folder_swap import recover, replace_folder

if TYPE_CHECKING:
    from axmem_gui.services.workspace import OpenWorkspace

#: Whether the workspace can keep a skill's SKILL.md extras (frontmatter keys, resource
#: files, layout). Needs `Skill.extra`; until then those extras survive file-to-file
#: conversion but not a trip through the workspace.
STORE_KEEPS_SKILL_EXTRA = "extra" in {f.name for f in dataclasses.fields(Skill)}


class _IsSet(Protocol):
    def is_set(self) -> bool: ...


CancelToken = _IsSet | Callable[[], bool] | None


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    message: str


ProgressFn = Callable[[Progress], None]


class ImportCancelled(AxmemError):
    def __init__(self) -> None:
        super().__init__("import cancelled; nothing was changed")


def is_cancelled(cancel: CancelToken) -> bool:
    if cancel is None:
        return False
    is_set = getattr(cancel, "is_set", None)
    if callable(is_set):
        return bool(is_set())
    return bool(cancel())  # type: ignore[operator]


def _report(progress: ProgressFn | None, done: int, total: int, message: str) -> None:
    if progress is not None:
        progress(Progress(done, total, message))


def format_problems(problems: Sequence[Problem], limit: int = 50) -> str:
    lines = [f"  {p}" for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"  ... and {len(problems) - limit} more")
    return "\n".join(lines)


# --- workspace <-> format entries -------------------------------------------------------


def skill_to_store(imported: ImportedSkill) -> Skill:
    if STORE_KEEPS_SKILL_EXTRA:
        return dataclasses.replace(imported.skill, extra=extra_value(imported))
    return imported.skill


def skill_from_store(skill: Skill) -> ImportedSkill:
    extra: Any = getattr(skill, "extra", None)
    if extra:
        stripped = dataclasses.replace(skill, extra={})
        return imported_from_extra(stripped, extra)
    return ImportedSkill(skill=skill)


def catalog_doc(catalog: Catalog) -> CatalogDoc:
    """A workspace catalog as the formats read and write it."""
    return CatalogDoc(
        skills=tuple(skill_from_store(s) for s in catalog.skills), memories=catalog.memories
    )


def workspace_doc(ws: OpenWorkspace) -> CatalogDoc:
    return catalog_doc(ws.catalog.snapshot())


# --- import -----------------------------------------------------------------------------


def read_sources(
    paths: Sequence[Path | str],
    *,
    fmt: FormatName | None = None,
    limits: ReadLimits | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken = None,
) -> list[SourceCatalog]:
    """Read every path (nothing is written). Problems are inside the results."""
    out = []
    total = len(paths)
    steps = 1000  # per path: a big file reports its bytes, a folder its skill folders

    for i, raw in enumerate(paths):
        if is_cancelled(cancel):
            raise ImportCancelled()
        path = Path(raw)
        _report(progress, i * steps, total * steps, f"reading {path}")

        def within(done: int, of: int, i: int = i, path: Path = path) -> None:
            if is_cancelled(cancel):
                raise ImportCancelled()  # between two chunks or two skill folders
            part = done / of if of else 1.0
            unit = "skill folders" if path.is_dir() else ""
            amount = (
                f"{done:,} of {of:,} {unit}"
                if unit
                else (f"{human_size(done)} of {human_size(of)}")
            )
            _report(
                progress, i * steps + int(part * steps), total * steps, f"reading {path}: {amount}"
            )

        out.append(read_source(path, fmt, limits, progress=within))
    _report(progress, total * steps, total * steps, "read")
    return out


def plan_from_sources(
    ws: OpenWorkspace,
    sources: Sequence[SourceCatalog],
    policy: Policy = "skip",
    *,
    overrides: dict[tuple[EntryKind, str], Policy] | None = None,
) -> ImportPlan:
    """Re-plan already read sources (cheap: a dialog can call it on every policy change)."""
    doc = workspace_doc(ws)
    return build_plan(
        sources,
        {s.id: s for s in doc.skills},
        {m.id: m for m in doc.memories},
        policy,
        overrides=overrides,
        compare_extra=STORE_KEEPS_SKILL_EXTRA,
    )


def plan_import(
    ws: OpenWorkspace,
    paths: Sequence[Path | str],
    policy: Policy = "skip",
    *,
    fmt: FormatName | None = None,
    limits: ReadLimits | None = None,
    overrides: dict[tuple[EntryKind, str], Policy] | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken = None,
) -> ImportPlan:
    sources = read_sources(paths, fmt=fmt, limits=limits, progress=progress, cancel=cancel)
    return plan_from_sources(ws, sources, policy, overrides=overrides)


@dataclass(frozen=True)
class AppliedChange:
    """One entry the import wrote: its value before (None = it did not exist) and after."""

    kind: EntryKind
    id: str
    action: str
    before: Skill | Memory | None
    after: Skill | Memory

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "action": self.action}


@dataclass(frozen=True)
class ImportResult:
    plan: ImportPlan
    batch: str | None
    changes: tuple[AppliedChange, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "batch": self.batch,
            "changes": [c.to_json() for c in self.changes],
            "plan": self.plan.to_json(),
        }


def _stored_value(item: PlanItem) -> Skill | Memory:
    entry = item.entry_to_write()
    return skill_to_store(entry) if isinstance(entry, ImportedSkill) else entry


def _check_not_stale(ws: OpenWorkspace, item: PlanItem) -> Skill | Memory | None:
    """The entry's current value, after checking it is what the plan saw: an update
    expects the planned value, an add or keep-both expects no entry under the target id."""
    found = ws.catalog.get(plural(item.kind), item.target_id)
    current = None if found is None else found.entry
    expected = item.existing if item.action == "update" else None
    now = skill_from_store(current) if isinstance(current, Skill) else current
    if now != expected:
        raise WorkspaceError(
            f"{item.kind} '{item.target_id}' changed since the import was planned; "
            "plan the import again"
        )
    return current


def apply_import(
    ws: OpenWorkspace,
    plan: ImportPlan,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken = None,
) -> ImportResult:
    """Write the plan's adds, updates and keep-boths in one transaction."""
    if not plan.ok:
        raise InputError(
            f"{len(plan.errors)} problem{'s' if len(plan.errors) != 1 else ''} in the input; "
            "nothing was imported:\n"
            + format_problems(plan.errors)
        )
    writes = plan.writes
    if not writes:
        return ImportResult(plan, None, ())
    service = ws.catalog
    changes: list[AppliedChange] = []
    total = len(writes)

    def before_each(i: int) -> None:
        # Inside the transaction: a cancel or a stale entry rolls every write back.
        if is_cancelled(cancel):
            raise ImportCancelled()
        if i == total:
            return
        item = writes[i]
        _report(progress, i, total, f"{item.action} {item.kind} '{item.target_id}'")
        before = _check_not_stale(ws, item)
        changes.append(AppliedChange(item.kind, item.target_id, item.action, before, after[i]))

    after = [_stored_value(item) for item in writes]
    batch = service.new_batch_id()
    service.write_many(
        [(plural(item.kind), Write(item.target_id, after[i])) for i, item in enumerate(writes)],
        batch=batch,
        before_each=before_each,
    )
    _report(progress, total, total, "imported")
    return ImportResult(plan, batch, tuple(changes))


def undo_import(ws: OpenWorkspace, result: ImportResult) -> None:
    """Put every entry the import touched back as it was, in one transaction."""
    ws.catalog.write_many(
        [
            (plural(change.kind), Write(change.id, change.before))
            for change in reversed(result.changes)
        ],
        batch=ws.catalog.new_batch_id(),
    )


def import_paths(
    ws: OpenWorkspace,
    paths: Sequence[Path | str],
    policy: Policy = "skip",
    *,
    dry_run: bool = False,
    fmt: FormatName | None = None,
    limits: ReadLimits | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken = None,
) -> tuple[ImportPlan, ImportResult | None]:
    """Plan, then (unless `dry_run` or the plan has errors) apply. The CLI's path."""
    plan = plan_import(ws, paths, policy, fmt=fmt, limits=limits, progress=progress, cancel=cancel)
    if dry_run or not plan.ok:
        return plan, None
    return plan, apply_import(ws, plan, progress=progress, cancel=cancel)


# --- export -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportResult:
    format: FormatName
    out: Path
    files: tuple[Path, ...]
    skills: int
    memories: int
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "out": str(self.out),
            "files": [str(f) for f in self.files],
            "skills": self.skills,
            "memories": self.memories,
            "warnings": list(self.warnings),
        }


def export_warnings(doc: CatalogDoc, fmt: FormatName) -> list[str]:
    warnings = []
    if fmt in ("ax-json", "ts"):
        carrying = [s.id for s in doc.skills if s.has_extra]
        if carrying:
            warnings.append(
                f"{len(carrying)} skill(s) carry SKILL.md extras (frontmatter keys or "
                f"resource files) that {fmt} cannot hold, e.g. '{carrying[0]}'; export as "
                "skills-dir to keep them"
            )
    if fmt == "jsonl" and doc.skills:
        warnings.append(
            f"{len(doc.skills)} skill(s) not exported: JSON Lines files hold memories only"
        )
    return warnings


def render_text(doc: CatalogDoc, fmt: FormatName) -> str:
    if fmt == "ax-json":
        return write_ax_json(doc)
    if fmt == "ts":
        return write_ts_module(doc)
    if fmt == "jsonl":
        return write_jsonl(doc.memories)
    raise ValueError(f"{fmt} is not a single-file format")


def _write_file_atomically(path: Path, data: bytes) -> None:
    write_file_atomic(path, data, "export")


def _materialize(root: Path, files: Sequence[OutputFile]) -> None:
    resolved_root = root.resolve()
    for f in files:
        target = root.joinpath(*f.path.split("/"))
        if not target.resolve().is_relative_to(resolved_root):
            raise InputError(f"refusing to write outside the export folder: {f.path}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(f.data)
        os.chmod(target, new_file_mode(executable=f.executable))


class ExportClashError(InputError):
    """A skills-dir export would replace folders or files already in the target folder.
    The message names them; each front end says how to allow it (`--force`, a checkbox)."""

    def __init__(self, out: Path, clashes: Sequence[str]) -> None:
        self.out = out
        self.clashes = tuple(clashes)
        more = " ..." if len(clashes) > 5 else ""
        super().__init__(f"{out}: already holds {', '.join(clashes[:5])}{more}")


def _top_names(files: Sequence[OutputFile]) -> list[str]:
    return sorted({f.path.split("/")[0] for f in files})


def skills_dir_clashes(ws: OpenWorkspace, out: Path) -> list[str]:
    """The folders (and memories file) a skills-dir export of `ws` into `out` would
    replace: empty when `out` does not exist yet or holds none of them."""
    if not out.is_dir():
        return []
    try:
        files = skills_dir_files(workspace_doc(ws))
    except ValueError:
        return []  # the export itself reports the problem
    return [n for n in _top_names(files) if (out / n).exists() or (out / n).is_symlink()]


def _write_skills_dir(out: Path, files: Sequence[OutputFile], force: bool) -> list[Path]:
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder")
    # The real folder, when `out` is a link to one: it is what gets replaced.
    target = out.resolve() if out.is_symlink() else out
    try:
        recover(target)  # what a killed export into it left beside it
    except OSError as exc:
        raise InputError(f"{out}: cannot finish an interrupted export: {exc}") from None
    top_names = _top_names(files)
    if out.is_dir() and not force:
        clashes = [n for n in top_names if (out / n).exists()]
        if clashes:
            raise ExportClashError(out, clashes)
    parent = target.parent
    if not parent.is_dir():
        raise InputError(f"{parent}: folder not found")
    # Built beside the target and swapped in at once (folder_swap): after any failure or
    # crash the folder is the old one or the new one, never a mix.
    try:
        replace_folder(
            target,
            lambda new: _materialize(new, files),
            top_names,
            new_file_mode(executable=True),
        )
    except OSError as exc:
        raise InputError(f"{out}: cannot write the export: {exc.strerror or exc}") from None
    return [out / name for name in top_names]


def export_doc(
    doc: CatalogDoc, fmt: FormatName, out: Path | str, *, force: bool = False
) -> ExportResult:
    """Write `doc` in `fmt` to `out` (a file, or a folder for skills-dir)."""
    out = Path(out)
    warnings = export_warnings(doc, fmt)
    limits = ReadLimits()  # what the import reads: every export imports back
    if fmt == "skills-dir":
        try:
            files = skills_dir_files(doc, limits)
        except ExportRefused as exc:
            raise InputError(
                f"{out}: {exc}; the import would refuse it, so nothing was exported"
            ) from None
        except ValueError as exc:
            raise InputError(str(exc)) from None
        written = _write_skills_dir(out, files, force)
    else:
        data = encode_text(render_text(doc, fmt))
        if len(data) > limits.max_file_bytes:
            raise InputError(
                f"{out}: {too_large(len(data), limits.max_file_bytes)}; the import would "
                "refuse it, so nothing was exported (export skills-dir, or part of the catalog)"
            )
        _write_file_atomically(out, data)
        written = [out]
    skills = 0 if fmt == "jsonl" else len(doc.skills)
    return ExportResult(fmt, out, tuple(written), skills, len(doc.memories), tuple(warnings))


def export_workspace(
    ws: OpenWorkspace, fmt: FormatName, out: Path | str, *, force: bool = False
) -> ExportResult:
    return export_doc(workspace_doc(ws), fmt, out, force=force)


# --- on a job's own connection -----------------------------------------------------------


def apply_import_at(
    address: WorkspaceAddress,
    plan: ImportPlan,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelToken = None,
) -> ImportResult:
    """`apply_import` on the workspace at `address`, opened here (a job's own thread)."""
    from axmem_gui.services.workspace import open_at

    with open_at(address) as ws:
        return apply_import(ws, plan, progress=progress, cancel=cancel)


def export_at(
    address: WorkspaceAddress, fmt: FormatName, out: Path | str, *, force: bool = False
) -> ExportResult:
    """`export_workspace` of the workspace at `address`, opened read-only here."""
    from axmem_gui.services.workspace import open_at

    with open_at(address, read_only=True) as ws:
        return export_workspace(ws, fmt, out, force=force)
