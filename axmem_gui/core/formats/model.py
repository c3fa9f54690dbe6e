"""What the catalog formats read and write.

Every format reads into a `CatalogDoc` (skills with whatever a SKILL.md folder carries
beyond Ax's four fields, plus memories) and writes from one. A reader never raises for bad
content: it returns the entries it could read and a `Problem` for each one it could not,
so an import can show every problem at once and then write nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from axmem_gui.core.catalog import Catalog, Memory, Skill

FormatName = Literal["ax-json", "ts", "skills-dir", "jsonl"]
FORMATS: tuple[FormatName, ...] = ("ax-json", "ts", "skills-dir", "jsonl")
Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class SkillResource:
    """A file that travels with a skill folder (`scripts/x.py`, `references/y.md`, ...).

    `path` is relative to the skill folder, with `/` separators; `data` is the file's
    bytes (resources may be binary)."""

    path: str
    data: bytes
    executable: bool = False


@dataclass(frozen=True)
class SkillMdLayout:
    """How the SKILL.md a skill came from was laid out.

    `head` runs from the file start through the closing `---` line (its newline
    included); `separator` is the line break between that line and the body that the
    reader removed ("" when the body started right after the closing line). While the
    frontmatter data is unchanged the writer reuses `head` verbatim, so an exported
    folder diffs clean against the one that was imported."""

    head: str
    separator: str


@dataclass(frozen=True)
class ImportedSkill:
    """A skill plus what a SKILL.md folder carries beyond Ax's fields.

    `frontmatter` holds every frontmatter key other than `name` and `description` (and
    the `tags` / `metadata.ax-id` keys the studio interprets), in file order, with
    JSON-compatible values. `layout` is a formatting hint only and is not compared."""

    skill: Skill
    frontmatter: Mapping[str, Any] = field(default_factory=dict)
    resources: tuple[SkillResource, ...] = ()
    layout: SkillMdLayout | None = field(default=None, compare=False)

    @property
    def id(self) -> str:
        return self.skill.id

    @property
    def has_extra(self) -> bool:
        """True when a format without folders (JSON, TS) would drop something."""
        return bool(self.frontmatter) or bool(self.resources)


@dataclass(frozen=True)
class CatalogDoc:
    """Format-neutral content of one catalog source."""

    skills: tuple[ImportedSkill, ...] = ()
    memories: tuple[Memory, ...] = ()

    def catalog(self) -> Catalog:
        return Catalog(skills=tuple(s.skill for s in self.skills), memories=self.memories)

@dataclass(frozen=True)
class Origin:
    """Where an entry came from: a file and a position inside it."""

    file: str
    entry: str

    def __str__(self) -> str:
        return f"{self.file}: {self.entry}" if self.entry else self.file


@dataclass(frozen=True)
class Problem:
    """One thing wrong (or worth a warning) in an input, naming file, entry and field."""

    file: str
    message: str
    entry: str = ""
    field: str = ""
    severity: Severity = "error"

    def __str__(self) -> str:
        """`file: entry: field 'k' <message>`: a message about a field is a predicate ("is
        missing", "must be a string, got a number"), worded as jsontext words them for
        every other file format."""
        parts = [self.file]
        if self.entry:
            parts.append(self.entry)
        parts.append(f"field '{self.field}' {self.message}" if self.field else self.message)
        return ": ".join(parts)

    def to_json(self) -> dict[str, str]:
        return {
            "severity": self.severity,
            "file": self.file,
            "entry": self.entry,
            "field": self.field,
            "message": self.message,
        }


@dataclass(frozen=True)
class SourceCatalog:
    """What one reader got from one path: the entries it could read, where each one came
    from (parallel tuples), and every problem it found."""

    source: str
    format: FormatName
    doc: CatalogDoc = field(default_factory=CatalogDoc)
    skill_origins: tuple[Origin, ...] = ()
    memory_origins: tuple[Origin, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == "error")

    @property
    def ok(self) -> bool:
        return not self.errors
