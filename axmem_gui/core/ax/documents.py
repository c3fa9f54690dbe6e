"""How Ax turns catalog entries into rankable documents, and what each field indexes.

Skill (discover and the skills hint): `id` (identifier tokens, weight 1), `name` (prose,
weight 2), `description` (prose, weight 2, only when non-empty; indexed whole), and the
first 600 UTF-16 units of `content` (prose, weight 1). Memory (recall and the memories
hint): `id` (identifier) and the first 600 units of `content`.

`memory_columns` / `skill_columns` give the same documents field by field (one list of
texts per field), which is what `SearchIndex.extend_columns` indexes fastest.

`document_fields` explains a document field by field for "why (not)?" views: the search
terms each field contributes, the words dropped as stopwords / too short / numbers, and
what lies beyond the content cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from axmem_gui.core.ax.jstext import utf16_len, utf16_slice, utf16_tail
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.ranking import RankDocument, RankField
from axmem_gui.core.ax.tokenize import Drop, Tokenizer
from axmem_gui.core.catalog import Memory, Skill

# Catalogs of 100,000 entries build these by the hundred thousand: create the named
# tuples with tuple.__new__ directly (the generated __new__ is Python code).
_make = tuple.__new__


def skill_document(skill: Skill, profile: AxProfile) -> RankDocument:
    content = utf16_slice(skill.content, profile.skill_content_chars)
    id_field = _make(RankField, (skill.id, 1, True, "id"))
    name_field = _make(RankField, (skill.name, profile.skill_name_weight, False, "name"))
    content_field = _make(RankField, (content, 1, False, "content"))
    fields: tuple[RankField, ...]
    if skill.description:
        weight = profile.skill_description_weight
        description = _make(RankField, (skill.description, weight, False, "description"))
        fields = (id_field, name_field, description, content_field)
    else:
        fields = (id_field, name_field, content_field)
    return _make(RankDocument, (skill.id, fields))


def memory_document(memory: Memory, profile: AxProfile) -> RankDocument:
    content = utf16_slice(memory.content, profile.memory_content_chars)
    fields = (
        _make(RankField, (memory.id, 1, True, "id")),
        _make(RankField, (content, 1, False, "content")),
    )
    return _make(RankDocument, (memory.id, fields))


class FieldColumn(NamedTuple):
    """One field of many documents: `texts[i]` is document i's."""

    texts: list[str]
    weight: float
    identifier: bool
    label: str


class DocumentColumns(NamedTuple):
    """Many documents of one field layout, field by field: what `SearchIndex` indexes
    fastest. Document i is `ids[i]` with one field per column; an empty text adds no
    search term, so it stands for a field the document does not have."""

    ids: list[str]
    columns: tuple[FieldColumn, ...]

    def part(self, start: int, stop: int | None = None) -> DocumentColumns:
        """Documents `start` to `stop`, field by field."""
        return DocumentColumns(
            self.ids[start:stop],
            tuple(column._replace(texts=column.texts[start:stop]) for column in self.columns),
        )

    def chars(self) -> list[int]:
        """Per document, the length of its texts (about how long indexing it takes)."""
        lengths = [list(map(len, column.texts)) for column in self.columns]
        return list(map(sum, zip(*lengths, strict=True))) if lengths else [0] * len(self.ids)

    def documents(self, start: int = 0, stop: int | None = None) -> list[RankDocument]:
        """Documents `start` to `stop` as records."""
        stop = len(self.ids) if stop is None else stop
        return [
            RankDocument(
                self.ids[i],
                tuple(RankField(c.texts[i], c.weight, c.identifier, c.label) for c in self.columns),
            )
            for i in range(start, stop)
        ]


def _cut(texts: Sequence[str], chars: int) -> list[str]:
    # utf16_slice, inlined for the common ASCII text
    return [t[:chars] if t.isascii() else utf16_slice(t, chars) for t in texts]


def memory_columns(memories: Sequence[Memory], profile: AxProfile) -> DocumentColumns:
    """The `memory_document`s of `memories`, field by field."""
    ids = [m.id for m in memories]
    contents = _cut([m.content for m in memories], profile.memory_content_chars)
    return DocumentColumns(
        ids, (FieldColumn(ids, 1, True, "id"), FieldColumn(contents, 1, False, "content"))
    )


def skill_columns(skills: Sequence[Skill], profile: AxProfile) -> DocumentColumns:
    """The `skill_document`s of `skills`, field by field (an empty description column
    entry where the document has no description field)."""
    ids = [s.id for s in skills]
    contents = _cut([s.content for s in skills], profile.skill_content_chars)
    return DocumentColumns(
        ids,
        (
            FieldColumn(ids, 1, True, "id"),
            FieldColumn([s.name for s in skills], profile.skill_name_weight, False, "name"),
            FieldColumn(
                [s.description for s in skills],
                profile.skill_description_weight,
                False,
                "description",
            ),
            FieldColumn(contents, 1, False, "content"),
        ),
    )


@dataclass(frozen=True)
class FieldTokens:
    """What one document field contributes to the index."""

    label: str
    weight: float
    identifier: bool
    indexed_text: str
    terms: tuple[str, ...]  # search terms, in order, repeats kept
    stopwords: tuple[str, ...]  # prose words removed as stopwords
    too_short: tuple[str, ...]  # prose pieces under 2 UTF-16 units
    numbers: tuple[str, ...]  # prose pieces made only of ASCII digits
    cut_text: str = ""  # content beyond the cut (not indexed)
    cut_terms: tuple[str, ...] = ()  # terms that would come from the cut text

    def to_json(self) -> dict[str, object]:
        return {
            "field": self.label,
            "weight": self.weight,
            "identifier": self.identifier,
            "terms": list(self.terms),
            "stopwords": list(self.stopwords),
            "tooShort": list(self.too_short),
            "numbers": list(self.numbers),
            "cutChars": utf16_len(self.cut_text),
            "cutTerms": list(self.cut_terms),
        }


def _field_tokens(
    label: str,
    weight: float,
    identifier: bool,
    text: str,
    tokenizer: Tokenizer,
    cut_at: int | None = None,
) -> FieldTokens:
    cut_text = utf16_tail(text, cut_at) if cut_at is not None else ""
    if cut_at is not None:
        text = utf16_slice(text, cut_at)
    cut_terms = tuple(tokenizer.prose(cut_text)) if cut_text else ()
    if identifier:
        return FieldTokens(label, weight, True, text, tuple(tokenizer.identifier(text)), (), (), ())
    terms: list[str] = []
    stopwords: list[str] = []
    short: list[str] = []
    numbers: list[str] = []
    sorted_into = {None: terms, Drop.STOPWORD: stopwords, Drop.SHORT: short, Drop.NUMBER: numbers}
    for t in tokenizer.raw_prose(text) if text else ():
        sorted_into[t.dropped].append(t.text)
    return FieldTokens(
        label,
        weight,
        False,
        text,
        tuple(terms),
        tuple(stopwords),
        tuple(short),
        tuple(numbers),
        cut_text,
        cut_terms,
    )


def skill_fields(skill: Skill, profile: AxProfile, tokenizer: Tokenizer) -> list[FieldTokens]:
    out = [
        _field_tokens("id", 1, True, skill.id, tokenizer),
        _field_tokens("name", profile.skill_name_weight, False, skill.name, tokenizer),
    ]
    if skill.description:
        out.append(
            _field_tokens(
                "description", profile.skill_description_weight, False, skill.description, tokenizer
            )
        )
    out.append(
        _field_tokens(
            "content", 1, False, skill.content, tokenizer, profile.skill_content_chars
        )
    )
    return out


def memory_fields(memory: Memory, profile: AxProfile, tokenizer: Tokenizer) -> list[FieldTokens]:
    return [
        _field_tokens("id", 1, True, memory.id, tokenizer),
        _field_tokens(
            "content", 1, False, memory.content, tokenizer, profile.memory_content_chars
        ),
    ]
