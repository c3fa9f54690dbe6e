"""Lossless catalog formats: Ax catalog JSON, TypeScript modules, Agent Skills folders
and JSON Lines memories, plus import plans.

Readers return a `SourceCatalog` (entries, where each came from, problems) and never raise
for bad input; writers take a `CatalogDoc`. For every format, reading what a writer wrote
gives back the same entries (skills-dir: same entries, in folder order).
"""

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
