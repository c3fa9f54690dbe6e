"""Lossless catalog formats: Ax catalog JSON, TypeScript modules, Agent Skills folders
and JSON Lines memories, plus import plans.

Readers return a `SourceCatalog` (entries, where each came from, problems) and never raise
for bad input; writers take a `CatalogDoc`. For every format, reading what a writer wrote
gives back the same entries (skills-dir: same entries, in folder order).

The names below are imported on first use (PEP 562): reading one small module of the
package (e.g. `fileio`, for user files) does not import every reader and YAML, which the
desktop app does not need before its first paint.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from axmem_gui.core.formats.axjson import (
        catalog_from_json_text,
        catalog_from_json_value,
        read_ax_json,
        write_ax_json,
    )
    from axmem_gui.core.formats.extra import extra_value, imported_from_extra
    from axmem_gui.core.formats.fileio import ReadLimits
    from axmem_gui.core.formats.jsonl import read_jsonl, write_jsonl
    from axmem_gui.core.formats.model import (
        FORMATS,
        CatalogDoc,
        FormatName,
        ImportedSkill,
        Origin,
        Problem,
        SkillMdLayout,
        SkillResource,
        SourceCatalog,
    )
    from axmem_gui.core.formats.plan import (
        POLICIES,
        ImportPlan,
        PlanItem,
        Policy,
        build_plan,
        fresh_id,
    )
    from axmem_gui.core.formats.reader import detect_format, read_source
    from axmem_gui.core.formats.skillmd import parse_skill_md, render_skill_md
    from axmem_gui.core.formats.skillsdir import (
        OutputFile,
        assign_folder_names,
        read_skills_path,
        skills_dir_files,
    )
    from axmem_gui.core.formats.tsmodule import read_ts_module, write_ts_module

#: Where each public name lives.
_HOMES: dict[str, str] = {
    "FORMATS": "axmem_gui.core.formats.model",
    "POLICIES": "axmem_gui.core.formats.plan",
    "CatalogDoc": "axmem_gui.core.formats.model",
    "FormatName": "axmem_gui.core.formats.model",
    "ImportPlan": "axmem_gui.core.formats.plan",
    "ImportedSkill": "axmem_gui.core.formats.model",
    "Origin": "axmem_gui.core.formats.model",
    "OutputFile": "axmem_gui.core.formats.skillsdir",
    "PlanItem": "axmem_gui.core.formats.plan",
    "Policy": "axmem_gui.core.formats.plan",
    "Problem": "axmem_gui.core.formats.model",
    "ReadLimits": "axmem_gui.core.formats.fileio",
    "SkillMdLayout": "axmem_gui.core.formats.model",
    "SkillResource": "axmem_gui.core.formats.model",
    "SourceCatalog": "axmem_gui.core.formats.model",
    "assign_folder_names": "axmem_gui.core.formats.skillsdir",
    "build_plan": "axmem_gui.core.formats.plan",
    "catalog_from_json_text": "axmem_gui.core.formats.axjson",
    "catalog_from_json_value": "axmem_gui.core.formats.axjson",
    "detect_format": "axmem_gui.core.formats.reader",
    "extra_value": "axmem_gui.core.formats.extra",
    "fresh_id": "axmem_gui.core.formats.plan",
    "imported_from_extra": "axmem_gui.core.formats.extra",
    "parse_skill_md": "axmem_gui.core.formats.skillmd",
    "read_ax_json": "axmem_gui.core.formats.axjson",
    "read_jsonl": "axmem_gui.core.formats.jsonl",
    "read_skills_path": "axmem_gui.core.formats.skillsdir",
    "read_source": "axmem_gui.core.formats.reader",
    "read_ts_module": "axmem_gui.core.formats.tsmodule",
    "render_skill_md": "axmem_gui.core.formats.skillmd",
    "skills_dir_files": "axmem_gui.core.formats.skillsdir",
    "write_ax_json": "axmem_gui.core.formats.axjson",
    "write_jsonl": "axmem_gui.core.formats.jsonl",
    "write_ts_module": "axmem_gui.core.formats.tsmodule",
}

__all__ = [
    "FORMATS",
    "POLICIES",
    "CatalogDoc",
    "FormatName",
    "ImportPlan",
    "ImportedSkill",
    "Origin",
    "OutputFile",
    "PlanItem",
    "Policy",
    "Problem",
    "ReadLimits",
    "SkillMdLayout",
    "SkillResource",
    "SourceCatalog",
    "assign_folder_names",
    "build_plan",
    "catalog_from_json_text",
    "catalog_from_json_value",
    "detect_format",
    "extra_value",
    "fresh_id",
    "imported_from_extra",
    "parse_skill_md",
    "read_ax_json",
    "read_jsonl",
    "read_skills_path",
    "read_source",
    "read_ts_module",
    "render_skill_md",
    "skills_dir_files",
    "write_ax_json",
    "write_jsonl",
    "write_ts_module",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
