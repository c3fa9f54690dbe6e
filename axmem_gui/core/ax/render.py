"""Ax-exact text: the `### Available Skills` section of the stage prompts and the
`Loaded Skills`, `Memories` and `Relevance Hints` user-turn fields.

The system-prompt section is rendered the way Ax builds the stage prompt: the template's
skills block with the sorted entry lines, every run of 3+ newlines collapsed to two, then
AxGen's field-reference rewrite with the stage's own field names (`` `query` `` becomes
`` `Query` ``, `$memories` becomes `` `Memories` ``...). User-turn values are verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from operator import attrgetter

from axmem_gui.core.ax.axllm_rules import skill_catalog
from axmem_gui.core.ax.collation import collation_keys
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.state import LoadedSkills, MemoryEntry, merge_memories
from axmem_gui.core.ax.template import render_template
from axmem_gui.core.catalog import Skill

STAGES = ("executor", "distiller")
_ID = attrgetter("id")
_THREE_OR_MORE_NEWLINES = re.compile(r"\n{3,}")
_TITLE_UNDERSCORE = re.compile(r"_")
_TITLE_BREAK = re.compile(r"([A-Z]|[0-9]+)")
_LANGUAGE_SPLIT = re.compile(r"[^A-Za-z0-9]+")

#: User-turn field titles (`Title: value`).
LOADED_SKILLS_TITLE = "Loaded Skills"
MEMORIES_TITLE = "Memories"
RELEVANCE_HINTS_TITLE = "Relevance Hints"


# --------------------------------------------------------------------------- fields


def field_title(name: str) -> str:
    """AxSignature `toTitle`: `actionLog` -> `Action Log`, `javascriptCode` ->
    `Javascript Code`."""
    text = _TITLE_BREAK.sub(r" \1", _TITLE_UNDERSCORE.sub(" ", name)).strip()
    return text[:1].upper() + text[1:]


def is_javascript_runtime(language: str, profile: AxProfile) -> bool:
    tokens = _runtime_tokens(language or profile.default_runtime_language)
    return "".join(tokens).lower() in profile.javascript_aliases


def _runtime_tokens(language: str) -> list[str]:
    text = language.strip().replace("#", " Sharp ").replace("+", " Plus ")
    return [t for t in _LANGUAGE_SPLIT.split(text) if t]


def code_field_name(language: str, profile: AxProfile) -> str:
    """The stage's output field: `javascriptCode`, `pythonCode`, ..."""
    tokens = _runtime_tokens(language.strip() or profile.default_runtime_language)
    if "".join(tokens).lower() in profile.javascript_aliases:
        return profile.javascript_code_field
    if not tokens:
        return profile.fallback_code_field
    first, *rest = tokens
    camel = first.lower() + "".join(t.lower()[:1].upper() + t.lower()[1:] for t in rest)
    return camel + profile.code_field_suffix


@dataclass(frozen=True)
class StageConfig:
    """What decides the shape of a stage prompt besides the catalog itself."""

    runtime_language: str = "JavaScript"
    agent_inputs: tuple[str, ...] = ("query",)
    memories_mode: bool = False
    relevance_hints: bool = False
    skill_usage: bool = False  # onUsedSkills given
    memory_usage: bool = False  # onUsedMemories given (with a memories search)
    context_map: bool = False  # a context map is configured (axllm's distiller shows it)


def stage_input_fields(profile: AxProfile, stage: str, config: StageConfig) -> list[str]:
    names: list[str] = []
    modes = {
        "memoriesMode": config.memories_mode,
        "relevanceHints": config.relevance_hints,
        "contextMap": config.context_map,
    }
    for entry in profile.stage_fields[stage]:
        if entry.name is None:
            names.extend(config.agent_inputs)
        elif entry.when is None or modes.get(entry.when, False):
            names.append(entry.name)
    return names


def stage_field_names(profile: AxProfile, stage: str, config: StageConfig) -> list[str]:
    """Input fields in signature order, then the output (code) field."""
    return [
        *stage_input_fields(profile, stage, config),
        code_field_name(config.runtime_language, profile),
    ]


@dataclass(frozen=True)
class _Reference:
    name: str
    literal: tuple[tuple[str, str], ...]  # (wrapped name, wrapped title) plain replacements
    dollar: re.Pattern[str]
    dollar_title: str


@lru_cache(maxsize=64)
def _rewrite_plan(field_names: tuple[str, ...], unicode_words: bool) -> tuple[_Reference, ...]:
    plan = []
    # longest names first; Python's sort is stable like V8's, equal lengths keep their order
    for name in sorted(field_names, key=len, reverse=True):
        title = field_title(name)
        if unicode_words:
            boundary = r"\b"  # axllm: Python's `\b`, Unicode word characters
        else:
            # JavaScript `\b` (no u flag) knows only ASCII word characters.
            word_end = re.match(r"\w", name[-1:], re.ASCII) is not None
            boundary = r"(?![A-Za-z0-9_])" if word_end else r"(?=[A-Za-z0-9_])"
        plan.append(
            _Reference(
                name,
                tuple((f"{a}{name}{b}", f"{a}{title}{b}") for a, b in _WRAPPERS),
                re.compile(r"\$" + re.escape(name) + boundary),
                f"`{title}`",
            )
        )
    return tuple(plan)


_WRAPPERS = (("`", "`"), ('"', '"'), ("'", "'"), ("[", "]"), ("(", ")"))


def rewrite_field_references(
    text: str, field_names: Sequence[str], unicode_words: bool = False
) -> str:
    """AxGen `formatFieldReferences`: longest names first (stable), six patterns each,
    applied one after the other like Ax's successive `replace` calls. `unicode_words`:
    axllm's version, whose `$name` ends at a Unicode word boundary."""
    for ref in _rewrite_plan(tuple(field_names), unicode_words):
        if ref.name not in text:
            continue  # no pattern can match; skipping is only a speed-up
        for wrapped_name, wrapped_title in ref.literal:
            text = text.replace(wrapped_name, wrapped_title)
        text = ref.dollar.sub(_constant(ref.dollar_title), text)
    return text


def _constant(value: str) -> Callable[[re.Match[str]], str]:
    """A re.sub replacement that inserts `value` literally (no backslash processing)."""
    return lambda _match: value


# --------------------------------------------------------------------------- system prompt


def _fill(template: str, **values: str) -> str:
    """Fill `{key}` placeholders in one left-to-right pass (values may contain braces)."""
    out: list[str] = []
    rest = template
    while True:
        start = rest.find("{")
        if start < 0:
            out.append(rest)
            return "".join(out)
        end = rest.find("}", start)
        key = rest[start + 1 : end] if end >= 0 else ""
        if key not in values:
            out.append(rest[: start + 1])
            rest = rest[start + 1 :]
            continue
        out.append(rest[:start])
        out.append(values[key])
        rest = rest[end + 1 :]


def sorted_for_index(skills: Iterable[Skill], profile: AxProfile | None = None) -> list[Skill]:
    """The index's entries in its order: Ax, every skill in `localeCompare` order of id
    (stable for equal keys); axllm, its cleaned-up catalog (one skill per trimmed id, by
    code point)."""
    if profile is not None and profile.is_axllm:
        return skill_catalog(skills)
    entries = list(skills)
    return [entries[i] for i in _locale_order(tuple(map(_ID, entries)))]


@lru_cache(maxsize=8)
def _locale_order(ids: tuple[str, ...]) -> tuple[int, ...]:
    # Keyed by the ids themselves: re-rendering an unchanged catalog (every keystroke in
    # a description) does not sort again.
    keys = collation_keys(ids)
    return tuple(sorted(range(len(ids)), key=keys.__getitem__))


@lru_cache(maxsize=16)
def _split_format(template: str) -> tuple[str, ...]:
    """`"- `{id}` — {name}"` -> ("- `", "id", "` — ", "name", ""): literals at even
    positions, placeholder names at odd ones."""
    parts: list[str] = []
    rest = template
    literal = ""
    while True:
        start = rest.find("{")
        end = rest.find("}", start) if start >= 0 else -1
        if start < 0 or end < 0:
            parts.append(literal + rest)
            return tuple(parts)
        key = rest[start + 1 : end]
        if not key.isidentifier():
            literal += rest[: start + 1]
            rest = rest[start + 1 :]
            continue
        parts.extend((literal + rest[:start], key))
        literal = ""
        rest = rest[end + 1 :]


def _index_lines(skills: Iterable[Skill], profile: AxProfile) -> list[str]:
    line_parts = _split_format(profile.skill_index_line)
    description_parts = _split_format(profile.skill_index_description)
    simple = line_parts[1::2] == ("id", "name") and description_parts[1::2] == ("description",)
    lines = []
    if simple:  # the shape every profile has so far: plain concatenation, no lookups
        head, middle, tail = line_parts[0], line_parts[2], line_parts[4]
        before, after = description_parts[0], description_parts[2]
        for skill in sorted_for_index(skills, profile):
            description = skill.description
            if description:
                lines.append(f"{head}{skill.id}{middle}{skill.name}{tail}{before}{description}{after}")
            else:
                lines.append(f"{head}{skill.id}{middle}{skill.name}{tail}")
        return lines
    for skill in sorted_for_index(skills, profile):
        line = _fill(profile.skill_index_line, id=skill.id, name=skill.name)
        if skill.description:
            line += _fill(profile.skill_index_description, description=skill.description)
        lines.append(line)
    return lines


def skills_index_list(skills: Iterable[Skill], profile: AxProfile) -> str:
    """`skillsCatalogList`: one line per catalog entry, sorted by id (localeCompare)."""
    return "\n".join(_index_lines(skills, profile))


def skills_index_lines(skills: Sequence[Skill], profile: AxProfile) -> list[str]:
    """Each skill's line of the index, in the order of `skills`: what
    `skills_index_list([skill], profile)` is for each skill, made in one pass (Ax's
    index: every skill has its line)."""
    if profile.is_axllm:
        return [skills_index_list([skill], profile) for skill in skills]
    lines = _index_lines(skills, profile)
    out = [""] * len(lines)
    for line, at in zip(lines, _locale_order(tuple(map(_ID, skills))), strict=True):
        out[at] = line
    return out


def postprocess_definition(text: str) -> str:
    """`.replace(/\\n{3,}/g, '\\n\\n')` as applied to the whole actor definition."""
    if "\n\n\n" not in text:
        return text
    return _THREE_OR_MORE_NEWLINES.sub("\n\n", text)


@lru_cache(maxsize=32_768)
def _rewrite_line(line: str, names: tuple[str, ...], unicode_words: bool) -> str:
    # A field reference never spans a newline, so rewriting entry by entry equals
    # rewriting the whole prompt; caching per entry keeps re-renders cheap.
    return rewrite_field_references(line, names, unicode_words)


@dataclass(frozen=True)
class SkillsSection:
    """The skills part of one stage's system prompt."""

    stage: str
    text: str  # `### Available Skills` ... `### Loaded Skills` paragraph, as the model sees it
    index_block: str | None  # heading + entry lines, as the model sees them
    #: (heading, entry lines, the text after them), before the field-reference rewrite
    raw_index: tuple[str, tuple[str, ...], str] | None = None

    @property
    def definition_block(self) -> str | None:
        """Heading + entry lines as `axBuildExecutorDefinition` returns them (before
        AxGen's field-reference rewrite). The newline collapse runs over the whole
        definition, so the text after the entries takes part: a last entry ending in a
        newline (a description of `"\\n"`) merges into the blank line before "Load a
        skill's full guide"."""
        if self.raw_index is None:
            return None
        heading, lines, after = self.raw_index
        return _index_block(postprocess_definition(heading + "\n".join(lines) + after))


_LIST_MARK = "\x00skillsCatalogList\x00"


def render_skills_section(
    skills: Sequence[Skill],
    stage: str,
    profile: AxProfile,
    config: StageConfig,
    *,
    preset_skills_loaded: bool = False,
) -> SkillsSection | None:
    """The stage's skills section, or None when the stage is not in skills mode.

    Skills mode: a non-empty catalog (it installs the built-in search), `skill_usage`, or
    (executor only) constructor skills already loaded. axllm lists its cleaned-up
    catalog (none left: no index) and shows the `used(...)` paragraph only when the agent
    sets `skillUsageMode`, which the studio does not.
    """
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}")
    skills_mode = len(skills) > 0 or config.skill_usage or (
        stage == "executor" and preset_skills_loaded
    )
    if not skills_mode:
        return None
    lines = _index_lines(skills, profile) if skills else []
    has_catalog = len(lines) > 0
    variables = {
        "hasSkills": True,
        "hasSkillsCatalog": has_catalog,
        "skillsCatalogList": _LIST_MARK,
        "isJavaScriptRuntime": is_javascript_runtime(config.runtime_language, profile),
        "skillUsageMode": config.skill_usage and not profile.is_axllm,
    }
    rendered = render_template(profile.templates[stage]["skills"], variables)
    names = tuple(stage_field_names(profile, stage, config))
    before, _, after = rendered.partition(_LIST_MARK)
    words = profile.is_axllm
    entries = "\n".join(map(_rewrite_line, lines, repeat(names), repeat(words)))
    # Newline runs are collapsed over the whole text (they may span the entries' edges);
    # the rewrite never touches newlines, so the order of the two steps does not matter.
    if not has_catalog:
        text = postprocess_definition(
            rewrite_field_references(before + after, names, words)
        ).strip("\n")
        return SkillsSection(stage, text, None)
    # The heading and the "Load a skill's..." text hold the edges of the section, so only
    # they need trimming (cheaper than trimming the whole, possibly megabyte-long, text).
    text = postprocess_definition(
        rewrite_field_references(before.lstrip("\n"), names, words)
        + entries
        + rewrite_field_references(after.rstrip("\n"), names, words)
    )
    heading = before.lstrip("\n")
    raw = (heading, tuple(lines), after.rstrip("\n"))
    return SkillsSection(stage, text, _index_block(text), raw)


_INDEX_END = "\n\nLoad a skill's full guide"


def _index_block(section: str) -> str:
    end = section.find(_INDEX_END)
    return section if end < 0 else section[:end]


# --------------------------------------------------------------------------- user turn


def render_loaded_skills(state: LoadedSkills, profile: AxProfile) -> str | None:
    """`renderSkillsPromptMarkdown`: the Loaded Skills value, None when nothing is loaded."""
    if len(state) == 0:
        return None
    return profile.skill_block_separator.join(
        _fill(profile.skill_loaded_block, id=s.id, name=s.name, content=s.content)
        for s in state.sorted(code_point=profile.is_axllm)
    )


def render_memories(entries: Iterable[object], profile: AxProfile) -> str | None:
    """`renderMemoriesPromptMarkdown`: merges (trim, dedupe, sort) then renders."""
    loaded = merge_memories(None, entries)
    return render_memory_entries(loaded, profile)


def render_memory_entries(loaded: Sequence[MemoryEntry], profile: AxProfile) -> str | None:
    """The Memories value of merged entries (one per id): axllm orders them by code point
    of id (`_agent_merge_memory_results`), Ax by `localeCompare`, as merged."""
    if not loaded:
        return None
    if profile.is_axllm:
        loaded = sorted(loaded, key=_ID)
    return profile.memory_block_separator.join(
        _fill(profile.memory_block, id=m.id, content=m.content) for m in loaded
    )


@dataclass(frozen=True)
class SkillHint:
    id: str
    name: str
    score: float

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "score": self.score}


@dataclass(frozen=True)
class MemoryHint:
    id: str
    snippet: str
    score: float

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "snippet": self.snippet, "score": self.score}


def render_relevance_hints(
    profile: AxProfile,
    skills: Sequence[SkillHint] = (),
    memories: Sequence[MemoryHint] = (),
    modules: Sequence[str] = (),
) -> str | None:
    """`renderRelevanceHintsMarkdown`; None when every shortlist is empty."""
    formats = profile.hint_formats
    sections: list[str] = []
    if modules:
        lines = [_fill(formats["moduleLine"], namespace=m) for m in modules]
        sections.append("Modules:\n" + "\n".join(lines))
    if skills:
        lines = [_fill(formats["skillLine"], id=s.id, name=s.name) for s in skills]
        sections.append("Skills:\n" + "\n".join(lines))
    if memories:
        lines = []
        for m in memories:
            line = _fill(formats["memoryLine"], id=m.id)
            if m.snippet:
                line += _fill(formats["memorySnippet"], snippet=m.snippet)
            lines.append(line)
        sections.append("Memories:\n" + "\n".join(lines))
    if not sections:
        return None
    return profile.hint_section_separator.join(sections)


def user_turn_field(title: str, value: str | None) -> str | None:
    """How a field appears in the user turn: `Title: value` (absent values drop it)."""
    return None if value is None else f"{title}: {value}"
