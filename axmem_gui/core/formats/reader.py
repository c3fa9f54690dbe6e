"""Read any supported catalog source from a path, choosing the format by its shape."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from axmem_gui.core.formats.axjson import read_ax_json
from axmem_gui.core.formats.fileio import (
    ReadFailure,
    ReadLimits,
    ReadProgress,
    describe_os_error,
    iter_text_lines,
    read_text_limited,
)
from axmem_gui.core.formats.jsonl import read_jsonl, read_jsonl_lines
from axmem_gui.core.formats.model import FormatName, SourceCatalog
from axmem_gui.core.formats.skillmd import SKILL_FILE
from axmem_gui.core.formats.skillsdir import read_skills_path
from axmem_gui.core.formats.tsmodule import read_ts_module
from axmem_gui.core.formats.values import failed_source

_BY_SUFFIX: dict[str, FormatName] = {
    ".json": "ax-json",
    ".ax-json": "ax-json",  # the format's own name, as people save it
    ".ts": "ts",
    ".mts": "ts",
    ".cts": "ts",
    ".js": "ts",
    ".mjs": "ts",
    ".cjs": "ts",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
_TEXT_READERS: dict[FormatName, Callable[..., SourceCatalog]] = {
    "ax-json": read_ax_json,
    "ts": read_ts_module,
    "jsonl": read_jsonl,
}


def detect_format(path: Path) -> FormatName | None:
    """The format of `path` from its kind and name; None when it cannot tell. Raises
    ReadFailure when the path cannot be inspected at all (missing, symlink loop...)."""
    try:
        st = path.stat()
    except OSError as exc:
        raise ReadFailure(describe_os_error(exc)) from None
    if stat.S_ISDIR(st.st_mode) or path.name == SKILL_FILE:
        return "skills-dir"
    return _BY_SUFFIX.get(os.path.splitext(path.name)[1].lower())


def read_source(
    path: Path,
    fmt: FormatName | None = None,
    limits: ReadLimits | None = None,
    *,
    keep_duplicates: bool = False,
    progress: ReadProgress | None = None,
) -> SourceCatalog:
    """Read one path; every failure becomes a Problem in the result, never an exception
    (but what `progress` raises, a cancel, goes through). With `keep_duplicates`, entries
    that repeat an id are kept and not reported. `progress(done, total)` follows the
    bytes of a file, the skill folders of a folder."""
    limits = limits or ReadLimits()
    source = str(path)
    try:
        chosen = fmt or detect_format(path)
    except ReadFailure as exc:
        return failed_source(source, fmt or "ax-json", str(exc))
    if chosen is None:
        return failed_source(
            source,
            "ax-json",
            "unknown catalog format: use a .json (or .ax-json), .ts, .jsonl file, a SKILL.md, "
            "or a folder of skill folders (or name the format explicitly)",
        )
    if chosen == "skills-dir":
        return read_skills_path(path, limits, keep_duplicates=keep_duplicates, progress=progress)
    try:
        if chosen == "jsonl":  # line by line: memory for the entries, not the text too
            lines = iter_text_lines(path, limits.max_file_bytes, progress=progress)
            return read_jsonl_lines(lines, source, keep_duplicates=keep_duplicates)
        text = read_text_limited(path, limits.max_file_bytes, progress=progress)
    except ReadFailure as exc:
        return failed_source(source, chosen, str(exc))
    return _TEXT_READERS[chosen](text, source, keep_duplicates=keep_duplicates)
