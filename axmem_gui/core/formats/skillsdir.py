"""Agent Skills folders: `<root>/<id>/SKILL.md` plus resource files.

Reading (`read_skills_path`) accepts a SKILL.md file, one skill folder, or a folder of
skill folders at any depth (a folder holding a SKILL.md is a skill; everything under it
is that skill's resources). Hidden entries (`.git`, `.github`, ...) and OS clutter
(`.DS_Store`, `__pycache__`) are skipped.

Skill folders come from strangers, so a walk is confined to the folder it was given:
symlinks (to files or folders, inside or out), hard links whose other names lie outside
the skill folder, FIFOs, sockets and devices are never followed nor read; each is listed
as a problem with its reason. Only the path the user names may itself be a symlink. Names
that are not valid UTF-8, unreadable files and files over the size limit are problems
naming the file and skill. A top-level `memories.jsonl` holds memories (the skills-dir
export writes one when there are memories).

Writing (`skills_dir_files`) is pure: it returns the files to create. A skill's folder
is its id when the id follows the Agent Skills naming rule (core/skill_names.py) and is a
portable folder name (see `is_portable_folder_name`); otherwise the folder gets the name
the rule's fix makes of the id ("Deploy Freeze!" -> `deploy-freeze`) and SKILL.md records
the exact id in `metadata.ax-id`, so no export writes a folder name the rule refuses.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from axmem_gui.core.formats.fileio import (
    ReadFailure,
    ReadLimits,
    ReadProgress,
    describe_os_error,
    file_kind,
    human_size,
    is_executable,
    read_bytes_limited,
    read_text_limited,
    too_large,
)
from axmem_gui.core.formats.jsonl import read_jsonl, write_jsonl
from axmem_gui.core.formats.model import (
    CatalogDoc,
    ImportedSkill,
    Origin,
    SkillResource,
    SourceCatalog,
)
from axmem_gui.core.formats.skillmd import (
    SKILL_FILE,
    SkillMdError,
    imported_from_parsed,
    parse_skill_md,
    render_skill_md,
    split_skill_md,
)
from axmem_gui.core.formats.values import Collector, has_lone_surrogate, report_duplicate_ids
from axmem_gui.core.formats.yamlio import FrontmatterError, check_frontmatter_limits
from axmem_gui.core.jsout import encode_text
from axmem_gui.core.skill_names import agent_skill_name, is_agent_skill_name

MEMORIES_FILE = "memories.jsonl"
IGNORED_NAMES = frozenset(
    {".git", ".hg", ".svn", ".DS_Store", "Thumbs.db", "desktop.ini", "__pycache__"}
)
_WINDOWS_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"COM{i}" for i in range(1, 10)}
    | {f"LPT{i}" for i in range(1, 10)}
)
_FORBIDDEN_CHARS = frozenset('<>:"/\\|?*')
_MAX_NAME_BYTES = 200


def _skipped(name: str) -> bool:
    return name in IGNORED_NAMES or name.startswith(".")


@dataclass
class _Budget:
    limits: ReadLimits
    total_bytes: int = 0
    files: int = 0

    def take(self, size: int) -> None:
        self.files += 1
        self.total_bytes += size
        problem = _over_budget(self.limits, self.files, self.total_bytes)
        if problem:
            raise ReadFailure(problem)


def _over_budget(limits: ReadLimits, files: int, total_bytes: int) -> str | None:
    """The message for a folder over the number or total size limits (import and export)."""
    if files > limits.max_files:
        return f"more than {limits.max_files} files under this path"
    if total_bytes > limits.max_total_bytes:
        return f"the files under this path exceed {human_size(limits.max_total_bytes)} in total"
    return None


@dataclass
class _Walk:
    c: Collector
    limits: ReadLimits
    budget: _Budget
    keep_duplicates: bool = False
    skill_folders: list[Path] = field(default_factory=list)


def _scandir_sorted(folder: Path) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as it:
        return sorted(it, key=lambda e: e.name)


def _real(path: Path | str) -> str:
    return os.path.realpath(path)


def _find_skill_folders(walk: _Walk, folder: Path, depth: int, ancestors: frozenset[str]) -> None:
    try:
        entries = _scandir_sorted(folder)
    except OSError as exc:
        walk.c.error(describe_os_error(exc), file=str(folder))
        return
    for entry in entries:
        if _skipped(entry.name):
            continue
        path = Path(entry.path)
        try:
            st = path.lstat()
        except OSError as exc:
            walk.c.warn(f"skipped: {describe_os_error(exc)}", file=str(path))
            continue
        if stat.S_ISLNK(st.st_mode):
            walk.c.warn(NOT_FOLLOWED, file=str(path))
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue
        real = _real(path)
        if real in ancestors:  # pragma: no cover - only reachable through symlinks
            continue
        if _has_skill_file(path):
            walk.skill_folders.append(path)
        elif depth < walk.limits.max_depth:
            _find_skill_folders(walk, path, depth + 1, ancestors | {real})


NOT_FOLLOWED = "skipped: a symlink (links in a skill folder are not followed)"


def _has_skill_file(folder: Path) -> bool:
    # lexists: a SKILL.md that is a symlink still marks a skill folder (and is refused).
    return os.path.lexists(folder / SKILL_FILE)


def _not_read_reason(st: os.stat_result) -> str:
    return f"skipped: a {file_kind(st.st_mode)}, not a regular file (not read)"


def folder_skill_id(folder: Path) -> str:
    # NFC: macOS may hand back decomposed names for a folder we wrote composed.
    return unicodedata.normalize("NFC", os.path.basename(os.path.abspath(folder)))


def _resource_files(
    walk: _Walk, skill_folder: Path, entry: str
) -> Iterator[tuple[str, Path, os.stat_result]]:
    """(relative posix path, path, stat) of each resource file under a skill folder."""
    found: list[tuple[str, Path, os.stat_result]] = []
    names_in_folder: dict[tuple[int, int], int] = {}
    stack: list[tuple[Path, tuple[str, ...]]] = [(skill_folder, ())]
    while stack:
        folder, parts = stack.pop()
        try:
            entries = _scandir_sorted(folder)
        except OSError as exc:
            walk.c.error(describe_os_error(exc), entry, file=str(folder))
            continue
        subfolders = []
        for item in entries:
            if item.name in IGNORED_NAMES or (not parts and item.name == SKILL_FILE):
                continue
            path = Path(item.path)
            rel = "/".join((*parts, item.name))
            if has_lone_surrogate(rel):
                walk.c.error("file name is not valid UTF-8", entry, file=str(path))
                continue
            try:
                st = path.lstat()
            except OSError as exc:
                walk.c.error(describe_os_error(exc), entry, file=str(path))
                continue
            if stat.S_ISLNK(st.st_mode):
                walk.c.warn(NOT_FOLLOWED, entry, file=str(path))
            elif stat.S_ISDIR(st.st_mode):
                if len(parts) >= walk.limits.max_depth:
                    walk.c.error("folders nested too deeply", entry, file=str(path))
                else:
                    subfolders.append((path, (*parts, item.name)))
            elif stat.S_ISREG(st.st_mode):
                key = (st.st_dev, st.st_ino)
                names_in_folder[key] = names_in_folder.get(key, 0) + 1
                found.append((rel, path, st))
            else:
                walk.c.warn(_not_read_reason(st), entry, file=str(path))
        stack.extend(reversed(subfolders))
    for rel, path, st in found:
        if st.st_nlink > names_in_folder[(st.st_dev, st.st_ino)]:
            walk.c.warn(HARD_LINK_OUTSIDE, entry, file=str(path))
        else:
            yield rel, path, st


HARD_LINK_OUTSIDE = (
    "skipped: a hard link to a file outside this skill folder (it has other names "
    "elsewhere; not read)"
)


def _read_resources(walk: _Walk, folder: Path, entry: str) -> tuple[SkillResource, ...]:
    out = []
    for rel, path, st in _resource_files(walk, folder, entry):
        try:
            walk.budget.take(st.st_size)
            data = read_bytes_limited(
                path, walk.limits.max_file_bytes, follow_symlinks=False, expect=st
            )
        except ReadFailure as exc:
            walk.c.error(str(exc), entry, file=str(path))
            continue
        out.append(SkillResource(rel, data, is_executable(st)))
    return tuple(sorted(out, key=lambda r: r.path))


def _read_skill_folder(walk: _Walk, folder: Path) -> tuple[ImportedSkill, Origin] | None:
    skill_id = folder_skill_id(folder)
    entry = f"skill '{skill_id}'"
    skill_md = folder / SKILL_FILE
    if has_lone_surrogate(skill_id):
        walk.c.error(
            "the folder name is not valid UTF-8 (rename the folder; it becomes the skill id)",
            entry,
            file=str(folder),
        )
        return None
    errors_before = walk.c.error_count
    parsed = None
    try:
        st = _confined_file(skill_md)
        walk.budget.take(st.st_size)
        text = read_text_limited(
            skill_md, walk.limits.max_file_bytes, follow_symlinks=False, expect=st
        )
        parsed = parse_skill_md(text)
    except ReadFailure as exc:
        walk.c.error(str(exc), entry, file=str(skill_md))
    except SkillMdError as exc:
        walk.c.error(exc.message, entry, exc.field, file=str(skill_md))
    resources = _read_resources(walk, folder, entry)
    if parsed is None or walk.c.error_count > errors_before:
        return None
    imported = imported_from_parsed(parsed, skill_id)
    imported = ImportedSkill(imported.skill, imported.frontmatter, resources, imported.layout)
    if imported.id != skill_id:
        entry = f"skill '{imported.id}'"
    return imported, Origin(str(skill_md), entry)


def _confined_file(path: Path) -> os.stat_result:
    """lstat of a file inside a skill folder that may be read: a regular file that is not
    a symlink and has no hard link outside the folder (SKILL.md, memories.jsonl)."""
    try:
        st = path.lstat()
    except OSError as exc:
        raise ReadFailure(describe_os_error(exc)) from None
    if stat.S_ISLNK(st.st_mode):
        raise ReadFailure("is a symlink (links in a skill folder are not followed)")
    if not stat.S_ISREG(st.st_mode):
        raise ReadFailure(f"not a regular file: a {file_kind(st.st_mode)}")
    if st.st_nlink > 1:
        raise ReadFailure("is a hard link with other names (possibly outside the folder)")
    return st


def read_skills_path(
    path: Path,
    limits: ReadLimits | None = None,
    *,
    keep_duplicates: bool = False,
    progress: ReadProgress | None = None,
) -> SourceCatalog:
    """Read a SKILL.md, a skill folder or a folder of skill folders. Never raises for bad
    content; every problem names the file and the skill. `progress(done, total)` counts
    skill folders (what it raises, a cancel, goes through)."""
    limits = limits or ReadLimits()
    source = str(path)
    c = Collector(source)
    walk = _Walk(c, limits, _Budget(limits), keep_duplicates)
    root_is_catalog = False
    try:
        st = path.stat()
    except OSError as exc:
        c.error(describe_os_error(exc))
        return SourceCatalog(source, "skills-dir", problems=tuple(c.problems))
    if stat.S_ISREG(st.st_mode) and path.name == SKILL_FILE:
        walk.skill_folders.append(path.parent)
    elif stat.S_ISDIR(st.st_mode) and _has_skill_file(path):
        walk.skill_folders.append(path)
    elif stat.S_ISDIR(st.st_mode):
        root_is_catalog = True
        _find_skill_folders(walk, path, 0, frozenset({_real(path)}))
    else:
        c.error(f"expected a {SKILL_FILE} file or a folder of skill folders")
    found = []
    total = len(walk.skill_folders)
    for done, folder in enumerate(walk.skill_folders, start=1):
        read = _read_skill_folder(walk, folder)
        if read is not None:
            found.append(read)
        if progress is not None and (done % 100 == 0 or done == total):
            progress(done, total)
    memories: SourceCatalog | None = None
    if root_is_catalog and os.path.lexists(path / MEMORIES_FILE):
        memories = _read_memories(walk, path / MEMORIES_FILE)
    if root_is_catalog and not walk.skill_folders and memories is None and not c.problems:
        c.error(f"no {SKILL_FILE} found in this folder or below it")
    if not keep_duplicates:
        bad = report_duplicate_ids([s.id for s, _ in found], [o for _, o in found], "skill", c)
        found = [f for i, f in enumerate(found) if i not in bad]
    return SourceCatalog(
        source=source,
        format="skills-dir",
        doc=CatalogDoc(
            skills=tuple(s for s, _ in found),
            memories=memories.doc.memories if memories else (),
        ),
        skill_origins=tuple(o for _, o in found),
        memory_origins=memories.memory_origins if memories else (),
        problems=tuple(c.problems) + (memories.problems if memories else ()),
    )


def _read_memories(walk: _Walk, path: Path) -> SourceCatalog | None:
    try:
        st = _confined_file(path)
        walk.budget.take(st.st_size)
        text = read_text_limited(path, walk.limits.max_file_bytes, follow_symlinks=False, expect=st)
    except ReadFailure as exc:
        walk.c.error(str(exc), file=str(path))
        return None
    return read_jsonl(text, str(path), keep_duplicates=walk.keep_duplicates)


# --- writing --------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputFile:
    """A file to create under the export folder (`path` relative, `/`-separated)."""

    path: str
    data: bytes
    executable: bool = False


def is_portable_folder_name(name: str) -> bool:
    """Whether `name` survives as a folder name on Linux, macOS and Windows and reads
    back as the same string (which the skills-dir reader then uses as the id)."""
    if not name or name in (".", "..") or _skipped(name):
        return False
    if len(name.encode("utf-8")) > _MAX_NAME_BYTES:
        return False
    if name != name.strip() or name.endswith("."):
        return False
    if any(ch in _FORBIDDEN_CHARS or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        return False
    if has_lone_surrogate(name) or unicodedata.normalize("NFC", name) != name:
        return False
    if name.split(".")[0].upper() in _WINDOWS_RESERVED:
        return False
    return name.casefold() != MEMORIES_FILE


def _folder_key(name: str) -> str:
    # Case-insensitive and normalization-insensitive file systems (macOS, Windows)
    # would put two such names in one folder.
    return unicodedata.normalize("NFC", name).casefold()


def assign_folder_names(ids: Sequence[str]) -> list[tuple[str, str | None]]:
    """(folder name, id to record in metadata.ax-id or None) for each id, in order.
    Ids that follow the Agent Skills naming rule and make portable folder names keep
    their name; the rest get a unique name that does."""
    taken: set[str] = set()
    result: list[tuple[str, str | None] | None] = [None] * len(ids)
    for i, skill_id in enumerate(ids):
        key = _folder_key(skill_id)
        valid = is_agent_skill_name(skill_id) and is_portable_folder_name(skill_id)
        if valid and key not in taken:
            taken.add(key)
            result[i] = (skill_id, None)

    def in_use(name: str) -> bool:
        return _folder_key(name) in taken or not is_portable_folder_name(name)

    for i, skill_id in enumerate(ids):
        if result[i] is not None:
            continue
        candidate = agent_skill_name(skill_id, in_use)
        taken.add(_folder_key(candidate))
        result[i] = (candidate, skill_id)
    return [r for r in result if r is not None]


class ExportRefused(ValueError):
    """An export the import would refuse to read back (the message is the import's)."""


def _check_resource_path(rel: str, skill_id: str, limits: ReadLimits) -> None:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"skill '{skill_id}': resource path '{rel}' is not a relative path")
    if "\\" in rel or "\0" in rel:
        raise ValueError(f"skill '{skill_id}': resource path '{rel}' has forbidden characters")
    if rel == SKILL_FILE:
        raise ValueError(f"skill '{skill_id}': a resource cannot be named {SKILL_FILE}")
    if len(parts) - 1 > limits.max_depth:  # what the reader's walk refuses
        raise ExportRefused(
            f"skill '{skill_id}': {rel}: folders nested too deeply (the import reads "
            f"{limits.max_depth} levels)"
        )


def _check_frontmatter(text: str, skill_id: str) -> None:
    """The rendered SKILL.md's frontmatter within what the reader takes."""
    try:
        check_frontmatter_limits(split_skill_md(text)[1], first_line=2)
    except (FrontmatterError, SkillMdError) as exc:
        raise ExportRefused(f"skill '{skill_id}': {SKILL_FILE}: frontmatter: {exc}") from None


def resource_path_problem(rel: str) -> str | None:
    """Why `rel` cannot name a new file of a skill folder (None when it can): a relative
    path of portable names that the reader does not skip, and not SKILL.md itself."""
    try:
        _check_resource_path(rel, "", ReadLimits())
    except ValueError as exc:
        return str(exc).split(": ", 1)[1]
    for part in rel.split("/"):
        if _skipped(part):
            return f"'{part}' is hidden or ignored: a skill folder read back would skip it"
        if not is_portable_folder_name(part) or part.casefold() == MEMORIES_FILE:
            return f"'{part}' is not a portable file name (Linux, macOS and Windows)"
    return None


def skills_dir_files(doc: CatalogDoc, limits: ReadLimits | None = None) -> list[OutputFile]:
    """Every file of a skills-dir export, in a stable order. Raises ValueError for what
    the export cannot write, or what the import would refuse (`check_export_files`)."""
    limits = limits or ReadLimits()
    files: list[OutputFile] = []
    names = assign_folder_names([s.id for s in doc.skills])
    for imported, (folder, stored_id) in zip(doc.skills, names, strict=True):
        text = render_skill_md(imported, stored_id)
        _check_frontmatter(text, imported.id)
        files.append(OutputFile(f"{folder}/{SKILL_FILE}", encode_text(text)))
        for res in imported.resources:
            _check_resource_path(res.path, imported.id, limits)
            files.append(OutputFile(f"{folder}/{res.path}", res.data, res.executable))
    if doc.memories:
        files.append(OutputFile(MEMORIES_FILE, encode_text(write_jsonl(doc.memories))))
    check_export_files(files, limits)
    return files


def check_export_files(files: Sequence[OutputFile], limits: ReadLimits) -> None:
    """ExportRefused, with the message the import would give, when reading `files` back
    as a skills folder would be refused: every export imports back."""
    total = 0
    for f in files:
        if len(f.data) > limits.max_file_bytes:
            raise ExportRefused(f"{f.path}: {too_large(len(f.data), limits.max_file_bytes)}")
        total += len(f.data)
    problem = _over_budget(limits, len(files), total)
    if problem:
        raise ExportRefused(problem)
