"""Hypothesis strategies for catalog entries that stress what formats must keep verbatim."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.formats import CatalogDoc, ImportedSkill, OutputFile, SkillResource

#: Strings that trip YAML, JSON, JS or line-based tools when not quoted or escaped.
TRICKY = [
    "",
    " ",
    " spaced ",
    "yes",
    "No",
    "null",
    "~",
    "2024-01-01",
    "1.0",
    "0x1F",
    "a: b",
    "- item",
    "# not a comment",
    "'single'",
    '"double"',
    "back\\slash",
    "line\nbreak",
    "crlf\r\nline",
    "\r",
    "trailing\n",
    "\n\nleading",
    "tab\there",
    "\u2028sep\u2029",
    "\ufeffbom",
    "nul\x00byte",
    "\x85nel",
    "emoji 😀 astral 𝄞",
    "日本語のテキスト",
    "`${template}`",
    "*/ // <!-- -->",
    "---",
    "...",
]

# Every character but lone surrogates (which are not characters and cannot be stored).
_chars = st.characters(exclude_categories=["Cs"])
text = st.one_of(st.sampled_from(TRICKY), st.text(_chars, max_size=24))
tags = st.lists(text, max_size=4).map(tuple)

skills = st.builds(Skill, id=text, name=text, description=text, content=text, tags=tags)
memories = st.builds(Memory, id=text, content=text, tags=tags)


def unique_by_id(items: st.SearchStrategy[Any], max_size: int = 5) -> st.SearchStrategy[Any]:
    return st.lists(items, max_size=max_size, unique_by=lambda e: e.id).map(tuple)


docs = st.builds(
    lambda ss, ms: CatalogDoc(skills=tuple(ImportedSkill(s) for s in ss), memories=ms),
    unique_by_id(skills),
    unique_by_id(memories),
)

# --- SKILL.md extras ---------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)),
    max_leaves=8,
)
_reserved = {"name", "description", "tags", "metadata"}
frontmatter_keys = text.filter(lambda k: k not in _reserved)
# An empty `metadata: {}` reads as no metadata (it says nothing), so generate 1+ keys.
metadata = st.dictionaries(
    text.filter(lambda k: k not in ("tags", "ax-id")), json_values, min_size=1, max_size=3
)
frontmatter = st.builds(
    lambda extra, meta: {**extra, **({"metadata": meta} if meta is not None else {})},
    st.dictionaries(frontmatter_keys, json_values, max_size=3),
    st.one_of(st.none(), metadata),
)

_segment = st.text("abcXYZ019_-. é", min_size=1, max_size=6).filter(
    lambda s: s not in (".", "..") and not s.startswith(".") and s.strip() == s
)
resource_paths = (
    st.lists(_segment, min_size=1, max_size=3)
    .map("/".join)
    .filter(lambda p: p != "SKILL.md" and not p.endswith(".") and "__pycache__" not in p)
)
resources = (
    st.lists(
        st.builds(
            SkillResource,
            path=resource_paths,
            data=st.binary(max_size=40),
            executable=st.booleans(),
        ),
        max_size=3,
        unique_by=lambda r: r.path.casefold(),
    )
    .filter(
        # A file and a folder cannot share one name ("a" and "a/b").
        lambda rs: (
            not any(
                other.path.casefold().startswith(r.path.casefold() + "/")
                for r in rs
                for other in rs
            )
        )
    )
    .map(lambda rs: tuple(sorted(rs, key=lambda r: r.path)))
)

# A SKILL.md body cannot hold NUL (the file would read as binary; the writer refuses).
folder_skills = st.builds(
    ImportedSkill,
    skill=st.builds(
        Skill,
        id=text,
        name=text,
        description=text,
        content=text.filter(lambda t: "\0" not in t),
        tags=tags,
    ),
    frontmatter=frontmatter,
    resources=resources,
)
# An empty folder is not a catalog (reading one is an error), so at least one entry.
folder_docs = st.builds(
    CatalogDoc,
    skills=unique_by_id(folder_skills, max_size=4),
    memories=unique_by_id(memories, max_size=3),
).filter(lambda d: d.skills or d.memories)


def materialize(root: Path, files: Sequence[OutputFile]) -> None:
    """Write an export's files (what the transfer service does, minus the staging)."""
    for f in files:
        target = root.joinpath(*f.path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(f.data)
        os.chmod(target, 0o755 if f.executable else 0o644)


def snapshot(root: Path) -> dict[str, tuple[bytes, bool]]:
    """Every file under root: relative path -> (bytes, executable)."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            rel = path.relative_to(root).as_posix()
            out[rel] = (path.read_bytes(), bool(path.stat().st_mode & 0o100))
    return out
