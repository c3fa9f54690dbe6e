"""Renderers: section text, field-reference rewrite, user-turn fields, loaded state."""

from __future__ import annotations

from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.render import (
    MemoryHint,
    SkillHint,
    StageConfig,
    code_field_name,
    field_title,
    render_loaded_skills,
    render_memories,
    render_relevance_hints,
    render_skills_section,
    rewrite_field_references,
    skills_index_list,
    stage_field_names,
)
from axmem_gui.core.ax.state import LoadedSkills, merge_memories
from axmem_gui.core.catalog import Skill

PROFILE = load_profile()
JS = StageConfig()


def test_field_titles() -> None:
    assert field_title("actionLog") == "Action Log"
    assert field_title("javascriptCode") == "Javascript Code"
    assert field_title("query") == "Query"
    assert field_title("user_id2") == "User id 2"


def test_code_field_per_runtime() -> None:
    assert code_field_name("JavaScript", PROFILE) == "javascriptCode"
    assert code_field_name("js", PROFILE) == "javascriptCode"
    assert code_field_name("Python", PROFILE) == "pythonCode"
    assert code_field_name("C#", PROFILE) == "cSharpCode"
    assert code_field_name("", PROFILE) == "javascriptCode"


def test_stage_fields_depend_on_modes() -> None:
    names = stage_field_names(PROFILE, "executor", JS)
    assert "memories" not in names and "relevanceHints" not in names
    on = StageConfig(memories_mode=True, relevance_hints=True)
    assert stage_field_names(PROFILE, "executor", on) == [
        "query", "executorRequest", "distilledContextSummary", "contextMetadata", "memories",
        "loadedSkills", "summarizedActorLog", "guidanceLog", "actionLog", "relevanceHints",
        "liveRuntimeState", "contextPressure", "javascriptCode",
    ]  # fmt: skip
    assert "relevanceHints" not in stage_field_names(PROFILE, "distiller", on)
    assert "executorRequest" not in stage_field_names(PROFILE, "distiller", on)


def test_field_reference_rewrite_patterns() -> None:
    text = "`query` \"query\" 'query' [query] (query) $query $queryX `queries` query"
    assert rewrite_field_references(text, ["query"]) == (
        "`Query` \"Query\" 'Query' [Query] (Query) `Query` $queryX `queries` query"
    )
    # longest names first: `actionLogs` is not touched by `actionLog`
    assert rewrite_field_references("`actionLog`", ["action", "actionLog"]) == "`Action Log`"
    # a backtick shared by two references: sequential passes, like Ax
    assert rewrite_field_references("`a`b`", ["a", "b"]) == "`A`B`"


def test_index_lines() -> None:
    skills = [
        Skill("b", "Bee", "  ", "x"),  # whitespace description is kept
        Skill("A", "", "no name here", "x"),
        Skill("a", "Ay", "", "x"),
    ]
    assert skills_index_list(skills, PROFILE) == (
        "- `a` — Ay\n- `A` —  — no name here\n- `b` — Bee —   "
    )


def test_executor_and_distiller_sections() -> None:
    skills = [Skill("s", "S", "line1\n\n\n\nline2", "c")]
    executor = render_skills_section(skills, "executor", PROFILE, JS)
    distiller = render_skills_section(skills, "distiller", PROFILE, JS)
    assert executor is not None and distiller is not None
    assert executor.index_block == "### Available Skills\n- `s` — S — line1\n\nline2"
    assert distiller.index_block == "### Available Skills\n\n- `s` — S — line1\n\nline2"
    assert "e.g. `await discover" in executor.text
    assert executor.text.endswith("to load additional skills as needed.")
    python = render_skills_section(skills, "executor", PROFILE, StageConfig("Python"))
    assert python is not None and "e.g." not in python.text
    assert render_skills_section([], "executor", PROFILE, JS) is None
    preset_only = render_skills_section([], "executor", PROFILE, JS, preset_skills_loaded=True)
    assert preset_only is not None and preset_only.text.startswith("### Loaded Skills")
    assert render_skills_section([], "distiller", PROFILE, JS) is None


def test_id_equal_to_a_field_name_is_rewritten() -> None:
    skills = [Skill("query", "Q", "see `executorRequest`", "c")]
    executor = render_skills_section(skills, "executor", PROFILE, JS)
    distiller = render_skills_section(skills, "distiller", PROFILE, JS)
    assert executor is not None and distiller is not None
    assert executor.index_block == "### Available Skills\n- `Query` — Q — see `Executor Request`"
    assert distiller.index_block == (
        "### Available Skills\n\n- `Query` — Q — see `executorRequest`"
    )
    assert executor.definition_block == (
        "### Available Skills\n- `query` — Q — see `executorRequest`"
    )


def test_loaded_skills_normalization_and_order() -> None:
    state = LoadedSkills().ingest(
        [
            {"name": "  Preset  ", "content": "P\n"},
            {"id": "  ", "name": "Blank", "content": "b"},
            {"id": "z", "name": "", "content": "dropped"},
            {"id": "r", "name": "Old", "content": "old"},
            {"id": "r", "name": "New", "content": "new"},
            {"id": "bad", "name": "Bad", "content": 3},
            "not an object",
        ]
    )
    assert state.ids() == ["Blank", "Preset", "r"]
    assert render_loaded_skills(state, PROFILE) == (
        "### Blank\n\nID: `Blank`\n\nb\n\n### Preset\n\nID: `Preset`\n\nP\n\n\n"
        "### New\n\nID: `r`\n\nnew"
    )
    assert render_loaded_skills(LoadedSkills(), PROFILE) is None


def test_memories_merge_and_render() -> None:
    merged = merge_memories(
        [{"id": " b ", "content": "first"}, {"id": "", "content": "x"}],
        [{"id": "b", "content": "second"}, {"id": "A", "content": "a"}, {"id": 1, "content": ""}],
    )
    assert [(m.id, m.content) for m in merged] == [("A", "a"), ("b", "second")]
    assert render_memories(merged, PROFILE) == (
        "### Memory\n\nID: `A`\n\na\n\n### Memory\n\nID: `b`\n\nsecond"
    )
    assert render_memories([], PROFILE) is None


def test_relevance_hints_text() -> None:
    assert render_relevance_hints(PROFILE) is None
    text = render_relevance_hints(
        PROFILE,
        skills=[SkillHint("s", " Name ", 1.0)],
        memories=[MemoryHint("m1", "snippet", 1.0), MemoryHint("m2", "", 0.5)],
        modules=["billing"],
    )
    assert text == (
        "Modules:\n- `billing`\nSkills:\n- `s` —  Name \nMemories:\n- `m1` — snippet\n- `m2`"
    )
