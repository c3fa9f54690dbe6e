"""TypeScript catalog modules.

Written form (what `tsc --strict` accepts against `@ax-llm/ax`'s own types):

    import type { AxAgentCatalogSkill, AxAgentMemoryResult } from '@ax-llm/ax';

    export const skillsCatalog: AxAgentCatalogSkill[] = [ {...}, ... ];
    export const memoriesCatalog: AxAgentMemoryResult[] = [ {...}, ... ];
    export const skillTags: Record<string, string[]> = { "<id>": ["tag", ...] };
    export const memoryTags: Record<string, string[]> = { ... };

Ax's entry types are closed object types, so the studio's tags cannot sit inside the
entries (tsc rejects unknown properties in object literals); they go in the two tag maps,
which are written only when some entry has tags.

Read form: any module where `skillsCatalog` / `memoriesCatalog` (and optionally the tag
maps) are declared with `const`/`let`/`var` and literal initializers, or an
`export default { skillsCatalog, memoriesCatalog }` object literal. Quotes of either kind,
template literals without `${}`, comments, trailing commas and `as const` / `satisfies`
are all fine. Strings are written as JSON string literals (valid JS), so reading back
what we wrote is exact.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from axmem_gui.core.formats.model import CatalogDoc, SourceCatalog
from axmem_gui.core.formats.tslex import (
    Token,
    TsSyntaxError,
    ValueParser,
    line_col,
    skip_type,
    tokenize,
)
from axmem_gui.core.formats.values import (
    catalog_from_value,
    failed_source,
    has_lone_surrogate,
)

DECLARED_NAMES = ("skillsCatalog", "memoriesCatalog", "skillTags", "memoryTags")
_DECLARATION_WORDS = ("const", "let", "var")


def _syntax_problem(text: str, source: str, exc: TsSyntaxError) -> SourceCatalog:
    line, col = line_col(text, exc.pos)
    return failed_source(source, "ts", f"line {line}, column {col}: {exc.message}")


def _declarations(tokens: list[Token]) -> tuple[dict[str, Any], Any]:
    """Initializers of the catalog names, and an `export default` literal if any."""
    parser = ValueParser(tokens)
    found: dict[str, Any] = {}
    default: Any = None
    i = 0
    while tokens[i].kind != "eof":
        t = tokens[i]
        nxt = tokens[i + 1]
        if (
            t.kind == "ident"
            and t.text in _DECLARATION_WORDS
            and nxt.kind == "ident"
            and nxt.text in DECLARED_NAMES
        ):
            j = i + 2
            if tokens[j].kind == "punct" and tokens[j].text == ":":
                j = skip_type(tokens, j + 1, stop=frozenset({"="}))
            if tokens[j].kind == "punct" and tokens[j].text == "=":
                if nxt.text in found:
                    raise TsSyntaxError(f"'{nxt.text}' is declared twice", nxt.pos)
                found[nxt.text], i = parser.value(j + 1)
                continue
            i = j
            continue
        if (
            t.kind == "ident"
            and t.text == "export"
            and nxt.kind == "ident"
            and nxt.text == "default"
            and tokens[i + 2].kind == "punct"
            and tokens[i + 2].text in ("{", "[")
        ):
            default, i = parser.value(i + 2)
            continue
        i += 1
    return found, default


def read_ts_module(text: str, source: str, *, keep_duplicates: bool = False) -> SourceCatalog:
    try:
        tokens = tokenize(text)
        found, default = _declarations(tokens)
    except TsSyntaxError as exc:
        return _syntax_problem(text, source, exc)
    except RecursionError:
        return failed_source(source, "ts", "values are nested too deeply")
    if "skillsCatalog" in found or "memoriesCatalog" in found:
        value: Any = {k: found[k] for k in ("skillsCatalog", "memoriesCatalog") if k in found}
        skill_tags, memory_tags = found.get("skillTags"), found.get("memoryTags")
    elif default is not None:
        value = default
        skill_tags = memory_tags = None
        if isinstance(default, dict):
            skill_tags, memory_tags = default.get("skillTags"), default.get("memoryTags")
            value = {k: v for k, v in default.items() if k not in ("skillTags", "memoryTags")}
    else:
        return failed_source(
            source,
            "ts",
            "no catalog found: expected `export const skillsCatalog = [...]` and/or "
            "`export const memoriesCatalog = [...]` (or an `export default` object literal)",
        )
    return catalog_from_value(
        value,
        source,
        "ts",
        skill_tags=skill_tags,
        memory_tags=memory_tags,
        keep_duplicates=keep_duplicates,
    )


# --- writing --------------------------------------------------------------------------


def _escape_invisible(ch: str) -> str:
    return f"\\u{ord(ch):04x}"


# Characters that are legal raw in a string literal but invisible or break older tools
# (U+2028/U+2029 were line terminators before ES2019); written as escapes.
_INVISIBLE = {chr(c): _escape_invisible(chr(c)) for c in range(0x7F, 0xA0)} | {
    ch: _escape_invisible(ch) for ch in "\u2028\u2029\ufeff\u200b\u200e\u200f"
}


def js_string(text: str) -> str:
    """A double-quoted literal that JS, TS and JSON all read back as exactly `text`."""
    if has_lone_surrogate(text):
        raise ValueError("cannot write a string with an unpaired surrogate")
    out = json.dumps(text, ensure_ascii=False)
    if any(ch in _INVISIBLE for ch in out):
        out = "".join(_INVISIBLE.get(ch, ch) for ch in out)
    return out


def _entry(fields: Sequence[tuple[str, str]]) -> str:
    lines = "".join(f"    {key}: {js_string(value)},\n" for key, value in fields)
    return "  {\n" + lines + "  },\n"


def _array(name: str, type_name: str, entries: list[str]) -> str:
    if not entries:
        return f"export const {name}: {type_name}[] = [];\n"
    return f"export const {name}: {type_name}[] = [\n" + "".join(entries) + "];\n"


def _tag_map(name: str, kind: str, pairs: Sequence[tuple[str, tuple[str, ...]]]) -> str:
    seen: set[str] = set()
    lines = []
    for entry_id, tags in pairs:
        if not tags:
            continue
        if entry_id in seen:
            raise ValueError(f"cannot write tags for {kind} id '{entry_id}': the id repeats")
        seen.add(entry_id)
        values = ", ".join(js_string(t) for t in tags)
        lines.append(f"  {js_string(entry_id)}: [{values}],\n")
    if not lines:
        return ""
    return (
        f"\n/** The studio's tags for {kind} entries, by id (not part of Ax's entry type). */\n"
        f"export const {name}: Record<string, string[]> = {{\n" + "".join(lines) + "};\n"
    )


def write_ts_module(doc: CatalogDoc) -> str:
    skills = []
    for imported in doc.skills:
        s = imported.skill
        fields = [("id", s.id), ("name", s.name)]
        if s.description:
            fields.append(("description", s.description))
        fields.append(("content", s.content))
        skills.append(_entry(fields))
    memories = [_entry([("id", m.id), ("content", m.content)]) for m in doc.memories]
    return (
        "// Ax skill and memory catalogs, written by Ax Memory & Skills Studio.\n"
        "import type { AxAgentCatalogSkill, AxAgentMemoryResult } from '@ax-llm/ax';\n"
        "\n"
        + _array("skillsCatalog", "AxAgentCatalogSkill", skills)
        + "\n"
        + _array("memoriesCatalog", "AxAgentMemoryResult", memories)
        + _tag_map("skillTags", "skill", [(s.skill.id, s.skill.tags) for s in doc.skills])
        + _tag_map("memoryTags", "memory", [(m.id, m.tags) for m in doc.memories])
    )
