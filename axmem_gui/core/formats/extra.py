"""What a skill carries beyond Ax's fields, as a JSON-compatible value.

This is the shape to store with a skill (proposed `Skill.extra`) so a skills folder
survives import -> workspace -> export byte for byte:

    {
      "frontmatter": {"license": "MIT", "allowed-tools": "Bash(git:*)", ...},
      "resources": [
        {"path": "scripts/run.py", "text": "...", "executable": true},
        {"path": "assets/logo.png", "base64": "iVBORw0..."}
      ],
      "skillMd": {"head": "---\\nname: ...\\n---\\n", "separator": "\\n"}
    }

Every key is optional; an empty mapping means "nothing beyond Ax's fields".
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from axmem_gui.core.catalog import Skill
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats.model import ImportedSkill, SkillMdLayout, SkillResource


def _resource_value(res: SkillResource) -> dict[str, Any]:
    out: dict[str, Any] = {"path": res.path}
    try:
        text = res.data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and "\0" not in text:
        out["text"] = text
    else:
        out["base64"] = base64.b64encode(res.data).decode("ascii")
    if res.executable:
        out["executable"] = True
    return out


def extra_value(imported: ImportedSkill) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if imported.frontmatter:
        out["frontmatter"] = dict(imported.frontmatter)
    if imported.resources:
        out["resources"] = [_resource_value(r) for r in imported.resources]
    if imported.layout is not None:
        out["skillMd"] = {"head": imported.layout.head, "separator": imported.layout.separator}
    return out


def _resource(value: Any, where: str) -> SkillResource:
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        raise InputError(f"{where}: a resource needs a 'path' string")
    path = value["path"]
    if isinstance(value.get("text"), str):
        data = value["text"].encode("utf-8", "surrogatepass")
    elif isinstance(value.get("base64"), str):
        try:
            data = base64.b64decode(value["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise InputError(f"{where}: resource '{path}' has invalid base64 data") from None
    else:
        raise InputError(f"{where}: resource '{path}' needs 'text' or 'base64'")
    return SkillResource(path, data, bool(value.get("executable", False)))


def imported_from_extra(skill: Skill, extra: Mapping[str, Any] | None) -> ImportedSkill:
    """The inverse of `extra_value`; InputError naming the skill when it is malformed."""
    if not extra:
        return ImportedSkill(skill=skill)
    where = f"skill '{skill.id}' extra data"
    frontmatter = extra.get("frontmatter") or {}
    if not isinstance(frontmatter, dict):
        raise InputError(f"{where}: 'frontmatter' must be an object")
    raw_resources = extra.get("resources") or []
    if not isinstance(raw_resources, list):
        raise InputError(f"{where}: 'resources' must be a list")
    resources = tuple(_resource(r, where) for r in raw_resources)
    layout = None
    md = extra.get("skillMd")
    if isinstance(md, dict) and isinstance(md.get("head"), str):
        separator = md.get("separator", "\n")
        layout = SkillMdLayout(md["head"], separator if isinstance(separator, str) else "\n")
    return ImportedSkill(skill, frontmatter, resources, layout)


def skill_resources(skill: Skill) -> tuple[SkillResource, ...]:
    """The files of the skill's folder besides SKILL.md (InputError when malformed)."""
    return imported_from_extra(skill, skill.extra).resources


def with_resources(skill: Skill, resources: Sequence[SkillResource]) -> Skill:
    """The skill with these files (in this order), everything else in `extra` kept."""
    extra = dict(skill.extra)
    if resources:
        extra["resources"] = [_resource_value(r) for r in resources]
    else:
        extra.pop("resources", None)
    return replace(skill, extra=extra)
