"""SKILL.md reading and writing: frontmatter mapping, layout reuse, tags, ids, errors."""

from __future__ import annotations

from dataclasses import replace

import pytest

from axmem_gui.core.catalog import Skill
from axmem_gui.core.formats import ImportedSkill, parse_skill_md, render_skill_md
from axmem_gui.core.formats.skillmd import SkillMdError, imported_from_parsed

HAND_WRITTEN = (
    "---\n"
    "name: pdf-processing\n"
    "description: Extract text and tables from PDF files. Use when the user mentions PDFs.\n"
    "license: Complete terms in LICENSE.txt\n"
    "allowed-tools: Bash(python:*) Read\n"
    "metadata:\n"
    "  author: docs-team\n"
    '  version: "1.2"\n'
    "  tags: pdf,documents\n"
    "---\n"
    "\n"
    "# PDF processing\n"
    "\n"
    "Run `scripts/extract.py`.\n"
)


def _read(text: str, skill_id: str = "pdf-processing") -> ImportedSkill:
    return imported_from_parsed(parse_skill_md(text), skill_id)


def test_fields_map_onto_the_ax_skill_and_the_rest_is_kept() -> None:
    imported = _read(HAND_WRITTEN)
    assert imported.skill == Skill(
        id="pdf-processing",
        name="pdf-processing",
        description="Extract text and tables from PDF files. Use when the user mentions PDFs.",
        content="# PDF processing\n\nRun `scripts/extract.py`.\n",
        tags=("pdf", "documents"),
    )
    assert imported.frontmatter == {
        "license": "Complete terms in LICENSE.txt",
        "allowed-tools": "Bash(python:*) Read",
        "metadata": {"author": "docs-team", "version": "1.2"},
    }


def test_unchanged_frontmatter_is_written_back_byte_for_byte() -> None:
    imported = _read(HAND_WRITTEN)
    assert render_skill_md(imported) == HAND_WRITTEN
    # Editing only the body keeps the author's frontmatter formatting ("pdf,documents").
    edited = replace(imported, skill=replace(imported.skill, content="New body\n"))
    assert render_skill_md(edited) == HAND_WRITTEN.split("\n\n# PDF")[0] + "\n\nNew body\n"


def test_changed_frontmatter_is_regenerated_keeping_other_keys() -> None:
    imported = _read(HAND_WRITTEN)
    edited = replace(imported, skill=replace(imported.skill, tags=("pdf", "forms, fields")))
    text = render_skill_md(edited)
    again = _read(text)
    assert again.skill == edited.skill
    assert again.frontmatter == imported.frontmatter
    # A tag with a comma cannot live in a comma-separated string: written as a list.
    assert "  tags:\n  - pdf\n  - forms, fields\n" in text


def test_top_level_tags_list_is_read_and_kept_in_place_while_unchanged() -> None:
    text = "---\nname: x\ndescription: d\ntags: [a, b]\n---\nbody"
    imported = _read(text, "x")
    assert imported.skill.tags == ("a", "b")
    assert imported.frontmatter == {}
    assert render_skill_md(imported) == text


def test_id_is_the_folder_name_unless_metadata_ax_id_says_otherwise() -> None:
    text = "---\nname: N\nmetadata:\n  ax-id: ' padded/id '\n---\n"
    imported = _read(text, "padded-id")
    assert imported.id == " padded/id "
    assert imported.frontmatter == {}  # the studio's own key is not an extra
    assert render_skill_md(imported, stored_id=" padded/id ") == text


def test_crlf_file_round_trips_and_regenerates_with_crlf() -> None:
    text = "---\r\nname: win\r\ndescription: made on Windows\r\n---\r\n\r\nline 1\r\nline 2\r\n"
    imported = _read(text, "win")
    assert imported.skill.content == "line 1\r\nline 2\r\n"
    assert render_skill_md(imported) == text
    renamed = replace(imported, skill=replace(imported.skill, name="Windows"))
    out = render_skill_md(renamed)
    assert out.startswith("---\r\nname: Windows\r\n")
    assert _read(out, "win").skill == renamed.skill


def test_body_without_blank_line_and_bom_are_kept() -> None:
    text = "\ufeff---\nname: tight\n---\n# Title right away\n"
    imported = _read(text, "tight")
    assert imported.skill.content == "# Title right away\n"
    assert render_skill_md(imported) == text


def test_content_starting_with_a_newline_survives_any_layout() -> None:
    tight = _read("---\nname: t\n---\nbody", "t")
    for content in ("\nX", "\r\nX", "\n", "", "\n\n\nX\n"):
        edited = replace(tight, skill=replace(tight.skill, content=content))
        assert _read(render_skill_md(edited), "t").skill.content == content


def test_yaml_special_strings_are_quoted_so_any_yaml_reader_agrees() -> None:
    skill = Skill(id="s", name="yes", description="2024-01-01", content="c", tags=("null",))
    text = render_skill_md(ImportedSkill(skill))
    assert 'name: "yes"' in text
    assert 'description: "2024-01-01"' in text
    import yaml

    head = text.split("---\n")[1]
    assert yaml.safe_load(head)["description"] == "2024-01-01"  # a string, not a date
    assert _read(text, "s").skill == skill


def test_dates_in_frontmatter_stay_strings() -> None:
    imported = _read("---\nname: d\nmetadata:\n  updated: 2025-03-14\n---\n", "d")
    assert imported.frontmatter == {"metadata": {"updated": "2025-03-14"}}


def test_content_with_nul_cannot_be_written_to_skill_md() -> None:
    with pytest.raises(ValueError, match="NUL"):
        render_skill_md(ImportedSkill(Skill(id="n", name="n", content="a\0b")))


@pytest.mark.parametrize(
    ("text", "message", "field"),
    [
        ("# Just markdown\n", "no YAML frontmatter", ""),
        ("---\nname: x\n", "not closed", ""),
        ("---\n---\nbody", "frontmatter is empty", "name"),
        ("---\ndescription: d\n---\n", "is missing", "name"),
        ("---\nname: 12\n---\n", "must be a string", "name"),
        ("---\nname: x\ndescription: [a]\n---\n", "must be a string", "description"),
        ("---\nname: x\ndescription: Use when: PDFs\n---\n", "line 3, column", ""),
        ("---\nname: x\nname: y\n---\n", "given twice", ""),
        ("---\n- a\n- b\n---\n", "must be a mapping", ""),
        ("---\nname: &a x\ndescription: *a\n---\n", "aliases", ""),
        ("---\nname: x\nmetadata:\n  tags: 3\n---\n", "comma-separated", "metadata.tags"),
        ("---\nname: x\nmetadata:\n  ax-id: 3\n---\n", "must be a string", "metadata.ax-id"),
        ("---\nname: x\nv: .nan\n---\n", "not a finite number", ""),
        ("---\nname: x\n1: c\n---\n", "must be a string", ""),
        ("---\nname: x\n? [a, b]\n: c\n---\n", "unhashable key", ""),
    ],
)
def test_bad_skill_md_gives_a_clear_message(text: str, message: str, field: str) -> None:
    with pytest.raises(SkillMdError) as info:
        parse_skill_md(text)
    assert message in info.value.message
    assert info.value.field == field
