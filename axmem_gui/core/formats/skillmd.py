"""One SKILL.md file (Agent Skills format): YAML frontmatter, then the body.

Mapping onto an Ax catalog skill:
- `name` -> name (required), `description` -> description, the body -> content.
- id: the folder name, unless `metadata.ax-id` is given (the writer adds it only when the
  id cannot be a portable folder name, e.g. `a/b`, ` padded `, or `CON`).
- tags: `metadata.tags` (a comma-separated string, or a list when a tag contains a comma
  or surrounding spaces), else a top-level `tags` key. The Agent Skills spec keeps
  `metadata` as a string-to-string map, so the common case stays spec-conformant.
- every other key (`license`, `allowed-tools`, `compatibility`, other `metadata` keys,
  anything else) is kept as is in `ImportedSkill.frontmatter` and written back.
- the body starts after the closing `---` line; one line break right after it (the
  customary blank line) is a separator, not content.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.catalog import Skill
from axmem_gui.core.formats.model import ImportedSkill, SkillMdLayout
from axmem_gui.core.formats.yamlio import FrontmatterError, dump_frontmatter, load_frontmatter
from axmem_gui.core.jsontext import type_name

SKILL_FILE = "SKILL.md"
ID_KEY = "ax-id"
TAGS_KEY = "tags"
_OPENING = re.compile(r"---[ \t]*\r?\n")
_LINE = re.compile(r"[^\n]*(?:\n|\Z)")


class SkillMdError(Exception):
    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True)
class FrontmatterData:
    """The frontmatter as the studio interprets it."""

    name: str
    description: str
    tags: tuple[str, ...]
    ax_id: str | None
    extra: Mapping[str, Any]


@dataclass(frozen=True)
class ParsedSkillMd:
    data: FrontmatterData
    content: str
    layout: SkillMdLayout


def split_skill_md(text: str) -> tuple[str, str, str]:
    """(head, frontmatter YAML, raw body). The head runs through the closing line."""
    start = 1 if text.startswith("\ufeff") else 0
    opening = _OPENING.match(text, start)
    if opening is None:
        raise SkillMdError(
            "no YAML frontmatter: a SKILL.md must start with a '---' line, then name and "
            "description, then another '---' line"
        )
    pos = opening.end()
    for line in _LINE.finditer(text, pos):
        if line.start() == len(text) and not line.group():
            break
        if line.group().rstrip("\r\n").rstrip(" \t") == "---":
            return text[: line.end()], text[pos : line.start()], text[line.end() :]
    raise SkillMdError("the frontmatter is not closed (no second '---' line)")


def decode_tags(raw: Any, field: str) -> tuple[str, ...]:
    if isinstance(raw, str):
        return tuple(t.strip() for t in raw.split(",") if t.strip())
    if isinstance(raw, list) and all(isinstance(t, str) for t in raw):
        return tuple(raw)
    raise SkillMdError("must be a comma-separated string or a list of strings", field)


def encode_tags(tags: tuple[str, ...]) -> str | list[str]:
    if all(t and t == t.strip() and "," not in t for t in tags):
        return ", ".join(tags)
    return list(tags)


def interpret_frontmatter(value: Any) -> FrontmatterData:
    if value is None:
        raise SkillMdError("is missing (the frontmatter is empty)", "name")
    if not isinstance(value, dict):
        raise SkillMdError("the frontmatter must be a mapping of keys to values")
    if "name" not in value:
        raise SkillMdError("is missing", "name")
    name = value["name"]
    if not isinstance(name, str):
        raise SkillMdError(f"must be a string, got {type_name(name)}", "name")
    description = value.get("description")
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise SkillMdError(f"must be a string, got {type_name(description)}", "description")
    extra = {k: v for k, v in value.items() if k not in ("name", "description")}
    metadata = extra.get("metadata")
    tags: tuple[str, ...] = ()
    ax_id = None
    if metadata == {}:
        # An empty metadata mapping says nothing; treating it as absent keeps the
        # reader and the writer (which adds metadata only when it has keys) in step.
        del extra["metadata"]
    elif isinstance(metadata, dict) and (TAGS_KEY in metadata or ID_KEY in metadata):
        metadata = dict(metadata)
        if TAGS_KEY in metadata:
            tags = decode_tags(metadata.pop(TAGS_KEY), f"metadata.{TAGS_KEY}")
        elif TAGS_KEY in extra:
            tags = decode_tags(extra.pop(TAGS_KEY), TAGS_KEY)
        if ID_KEY in metadata:
            ax_id = metadata.pop(ID_KEY)
            if not isinstance(ax_id, str):
                got = type_name(ax_id)
                raise SkillMdError(f"must be a string, got {got}", f"metadata.{ID_KEY}")
        if metadata:
            extra["metadata"] = metadata
        else:
            del extra["metadata"]
    elif TAGS_KEY in extra:
        tags = decode_tags(extra.pop(TAGS_KEY), TAGS_KEY)
    return FrontmatterData(name, description, tags, ax_id, extra)


def parse_skill_md(text: str) -> ParsedSkillMd:
    """Raises SkillMdError with a message (and field) fit for the user."""
    head, yaml_text, body = split_skill_md(text)
    try:
        # The YAML starts on the file's second line, after the opening '---'.
        value = load_frontmatter(yaml_text, first_line=2)
    except FrontmatterError as exc:
        raise SkillMdError(f"frontmatter: {exc}") from None
    data = interpret_frontmatter(value)
    separator = "\r\n" if body.startswith("\r\n") else ("\n" if body.startswith("\n") else "")
    return ParsedSkillMd(data, body[len(separator) :], SkillMdLayout(head, separator))


def imported_from_parsed(parsed: ParsedSkillMd, skill_id: str) -> ImportedSkill:
    d = parsed.data
    skill = Skill(
        id=d.ax_id if d.ax_id is not None else skill_id,
        name=d.name,
        description=d.description,
        content=parsed.content,
        tags=d.tags,
    )
    return ImportedSkill(skill=skill, frontmatter=d.extra, layout=parsed.layout)


# --- writing --------------------------------------------------------------------------


def frontmatter_pairs(
    skill: Skill, extra: Mapping[str, Any], stored_id: str | None
) -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = [("name", skill.name), ("description", skill.description)]
    additions: dict[str, Any] = {}
    # A top-level `tags` key left in `extra` would be read as the tags unless
    # metadata.tags is present, so write metadata.tags (maybe "") in that case too.
    if skill.tags or TAGS_KEY in extra:
        additions[TAGS_KEY] = encode_tags(skill.tags)
    if stored_id is not None:
        additions[ID_KEY] = stored_id
    placed = False
    for key, value in extra.items():
        if key in ("name", "description"):
            continue
        if key == "metadata" and isinstance(value, dict) and additions:
            value = {**value, **additions}
            placed = True
        pairs.append((key, value))
    if additions and not placed:
        if "metadata" in extra:
            raise ValueError(
                f"skill '{skill.id}': frontmatter 'metadata' is not a mapping, so its tags "
                "or id cannot be written"
            )
        pairs.append(("metadata", additions))
    return pairs


def _head_still_valid(
    layout: SkillMdLayout, skill: Skill, extra: Mapping[str, Any], stored_id: str | None
) -> bool:
    try:
        _, yaml_text, _ = split_skill_md(layout.head)
        data = interpret_frontmatter(load_frontmatter(yaml_text))
    except (SkillMdError, FrontmatterError):
        return False
    if not layout.head.endswith("\n") and skill.content:
        return False
    wanted = FrontmatterData(skill.name, skill.description, skill.tags, stored_id, extra)
    return data == wanted


def render_skill_md(imported: ImportedSkill, stored_id: str | None = None) -> str:
    """The SKILL.md text. `stored_id` is the id to record in `metadata.ax-id` when the
    folder name cannot carry it (None when the folder name is the id)."""
    skill, layout = imported.skill, imported.layout
    if "\0" in skill.content:
        # Tools (git, editors, our reader) take a file with NUL bytes for binary.
        raise ValueError(
            f"skill '{skill.id}': its content has NUL characters, which a SKILL.md file "
            "cannot hold; export it as ax-json or ts instead"
        )
    extra = dict(imported.frontmatter)
    if layout is not None and _head_still_valid(layout, skill, extra, stored_id):
        head, separator = layout.head, layout.separator
    else:
        newline = "\r\n" if layout is not None and "\r\n" in layout.head else "\n"
        yaml_text = dump_frontmatter(frontmatter_pairs(skill, extra, stored_id), newline)
        head = f"---{newline}{yaml_text}---{newline}"
        separator = layout.separator if layout is not None else "\n"
    if not separator and skill.content.startswith(("\n", "\r\n")):
        separator = "\n"  # else the reader would take the content's first line break
    return head + separator + skill.content
