"""Ax catalog JSON, TypeScript modules and JSON Lines: accepted shapes and clear errors."""

from __future__ import annotations

import pytest

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import (
    SourceCatalog,
    catalog_from_json_text,
    read_ax_json,
    read_jsonl,
    read_ts_module,
)


def _errors(src: SourceCatalog) -> list[str]:
    return [str(p) for p in src.problems if p.severity == "error"]


# --- Ax catalog JSON ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"skillsCatalog": [{"id": "a", "name": "A", "content": "c"}], "memoriesCatalog": '
        '[{"id": "m", "content": "x"}]}',
        '{"skills": [{"id": "a", "name": "A", "content": "c"}], "memories": '
        '[{"id": "m", "content": "x"}]}',
    ],
)
def test_json_object_shapes(text: str) -> None:
    src = read_ax_json(text, "c.json")
    assert src.problems == ()
    assert src.doc.catalog().skills == (Skill("a", "A", "", "c"),)
    assert src.doc.memories == (Memory("m", "x"),)


def test_bare_list_is_skills_with_name_and_memories_without() -> None:
    skills = read_ax_json('[{"id": "a", "name": "A", "content": "c"}]', "s.json")
    assert [s.id for s in skills.doc.skills] == ["a"] and skills.doc.memories == ()
    mems = read_ax_json('[{"id": "m", "content": "x", "tags": ["t"]}]', "m.json")
    assert mems.doc.memories == (Memory("m", "x", ("t",)),) and mems.doc.skills == ()


def test_json_problems_name_file_entry_and_field() -> None:
    text = (
        '{"skillsCatalog": ['
        '{"id": "a", "name": "A", "content": "c"},'
        '{"id": "b", "name": 3, "content": "c", "extra": 1},'
        '{"id": "a", "name": "A again", "content": "c"},'
        '"not an object",'
        '{"id": "d", "name": "D", "name": "D2", "content": "c"}'
        "]}"
    )
    src = read_ax_json(text, "cat.json")
    assert _errors(src) == [
        "cat.json: skillsCatalog[1] 'b': field 'name' must be a string, got a number",
        "cat.json: skillsCatalog[3]: skill must be an object, got a string",
        "cat.json: skillsCatalog[4] 'd': field 'name' is given twice in the same object "
        "(only one value can be kept)",
        "cat.json: skillsCatalog[2] 'a': field 'id' repeats the skill id 'a' "
        "(first at skillsCatalog[0] 'a')",
    ]
    warnings = [str(p) for p in src.problems if p.severity == "warning"]
    assert warnings == [
        "cat.json: skillsCatalog[1] 'b': field 'extra' is not part of an Ax catalog skill; "
        "it is not imported"
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"skillsCatalog": [', "not valid JSON (line 1, column 20"),
        ('"just a string"', "expected a list or an object, got a string"),
        ('{"other": []}', "expected a list of skills or memories"),
        ('{"skillsCatalog": {}}', "field 'skillsCatalog' must be a list, got an object"),
        ('[{"id": "x", "content": "\\ud800"}]', "unpaired UTF-16 surrogate"),
        ('[{"id": "x", "name": "n"}]', "field 'content' is missing"),
    ],
)
def test_bad_json(text: str, message: str) -> None:
    errors = _errors(read_ax_json(text, "bad.json"))
    assert errors and any(message in e for e in errors), errors


# --- TypeScript modules ---------------------------------------------------------------------

HAND_WRITTEN_TS = """\
// Skills for the support agent.
import type { AxAgentCatalogSkill } from '@ax-llm/ax';

/* Block comment with a fake entry: { id: 'nope' } */
export const skillsCatalog: readonly AxAgentCatalogSkill[] = [
  {
    id: 'refunds',                // single quotes
    name: "Refund policy",
    description: `When a customer asks for money back`,
    content: 'Line one\\nLine two \\u{1F600} \\x41 it\\'s',
  },
  {
    id: "escalation",
    name: 'Escalation',
    content: `multi
line`,
  }, // trailing comma
] as const;

const helper = (x: number) => x * 2;  // other code is ignored

export const memoriesCatalog = [
  { id: "tz", content: "Customer is in UTC+2", },
] satisfies { id: string; content: string }[]

export const skillTags: Record<string, string[]> = { refunds: ['billing'] };
"""


def test_hand_written_module() -> None:
    src = read_ts_module(HAND_WRITTEN_TS, "agent.ts")
    assert src.problems == ()
    assert src.doc.catalog().skills == (
        Skill(
            "refunds",
            "Refund policy",
            "When a customer asks for money back",
            "Line one\nLine two 😀 A it's",
            ("billing",),
        ),
        Skill("escalation", "Escalation", "", "multi\nline"),
    )
    assert src.doc.memories == (Memory("tz", "Customer is in UTC+2"),)


def test_export_default_object() -> None:
    text = "export default {\n  skillsCatalog: [{ id: 'a', name: 'A', content: '' }],\n};\n"
    src = read_ts_module(text, "d.ts")
    assert src.problems == ()
    assert [s.id for s in src.doc.skills] == ["a"]


def test_template_literal_line_breaks_read_as_lf() -> None:
    src = read_ts_module("const skillsCatalog = [{id:'a',name:'A',content:`x\r\ny`}];", "t.ts")
    assert src.doc.skills[0].skill.content == "x\ny"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("export const skillsCatalog = [base];", "line 1, column 31: expected a literal value"),
        ("export const skillsCatalog = [...base];", "spread"),
        ("const skillsCatalog = [{ id, name: 'n', content: '' }];", "shorthand property 'id'"),
        ("const skillsCatalog = [{ id: `a${x}`, name: 'n', content: '' }];", "template literal"),
        ("const skillsCatalog = [{ id: 'a\n', name: 'n' }];", "unterminated string"),
        ("const skillsCatalog = [{ id: '\\101' }];", "octal escapes"),
        ("const skillsCatalog = [];\nconst skillsCatalog = [];", "declared twice"),
        ("export const x = 1;", "no catalog found"),
        ("const skillsCatalog = [1,,2];", "empty array slot"),
        ("/* never closed", "unterminated /* comment"),
        ("const skillsCatalog = [{ [k]: 1 }];", "computed keys"),
        ("const skillsCatalog = ['\\ud800'];", "unpaired UTF-16 surrogate"),
    ],
)
def test_bad_ts(text: str, message: str) -> None:
    errors = _errors(read_ts_module(text, "bad.ts"))
    assert errors and message in errors[0], errors
    assert errors[0].startswith("bad.ts: ")


def test_ts_entry_errors_use_json_positions() -> None:
    src = read_ts_module("const skillsCatalog = [{ id: 'a', name: 1, content: '' }];", "e.ts")
    assert _errors(src) == [
        "e.ts: skillsCatalog[0] 'a': field 'name' must be a string, got a number"
    ]


# --- JSON Lines -------------------------------------------------------------------------------


def test_jsonl_reads_memories_skipping_blank_lines_and_crlf() -> None:
    text = '{"id": "a", "content": "x\\u2028y"}\r\n\n   \n{"id": "b", "content": "", "tags": []}\n'
    src = read_jsonl(text, "m.jsonl")
    assert src.problems == ()
    assert src.doc.memories == (Memory("a", "x\u2028y"), Memory("b", ""))


def test_jsonl_problems_name_the_line() -> None:
    text = (
        '{"id": "a", "content": "x"}\n{oops\n{"id": "s", "name": "n", "content": ""}\n'
        '{"id": "a", "content": "again"}\n[1]\n'
    )
    assert _errors(read_jsonl(text, "m.jsonl")) == [
        "m.jsonl: line 2: not valid JSON (column 2: Expecting property name enclosed in "
        "double quotes)",
        "m.jsonl: line 3: looks like a skill (has 'name'); JSON Lines files hold memories "
        "only, use a catalog JSON file for skills",
        "m.jsonl: line 5: memory must be an object, got a list",
        "m.jsonl: line 4 'a': field 'id' repeats the memory id 'a' (first at line 1 'a')",
    ]


def test_one_reader_two_sets_of_rules() -> None:
    """Import and run time read Ax catalog JSON through one reader: the same words for the
    same problem, and only what Ax accepts but a workspace cannot store differs."""
    bad = '{"skills": [{"id": "a", "name": 5, "content": ""}]}'
    (problem,) = _errors(read_ax_json(bad, "c.json"))
    with pytest.raises(InputError) as raised:
        catalog_from_json_text(bad, "c.json")
    message = "c.json: skills[0] 'a': field 'name' must be a string, got a number"
    assert str(raised.value) == problem == message

    text = (
        '{"memories": [{"id": "m", "content": "\\ud83c", "tags": ["t"], "metadata": {"k": 1}},'
        ' {"id": "m", "content": "again"},'
        ' {"id": "n", "content": "1"}, {"id": "n", "content": "2"}]}'
    )
    imported = _errors(read_ax_json(text, "c.json"))
    assert any("unpaired UTF-16 surrogate" in e for e in imported)
    assert any("repeats the memory id 'n'" in e for e in imported)
    catalog = catalog_from_json_text(text, "c.json")  # Ax renders both, the last one wins
    assert [m.content for m in catalog.memories] == ["\ud83c", "again", "1", "2"]
    first = catalog.memories[0]
    assert first.tags == ("t",)
    payload = {"id": "m", "content": "\ud83c", "tags": ["t"], "metadata": {"k": 1}}
    assert first.to_payload() == payload
