"""Lint over an index someone else keeps (the app's, patched per edit) reads it right.

`TopRanker.of_index` (postings taken from the `SearchIndex`) is compared with the ranker
made from each document's decoded terms and with `SearchIndex.rank`, on seeded random
catalogs whose index was patched after it was built (documents updated, removed and
added; entries in another order than handles; repeated ids), with the postings' slicing
made tiny so that every path runs; the whole report of a `LintSession` on such a lent
index is compared with `lint_catalog`; and the faster identity checks, report order and
index line sizes with their plain definitions.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

import pytest

import axmem_gui.core.lint as lint_package
from axmem_gui.core.ax import index_codes
from axmem_gui.core.ax.documents import (
    memory_columns,
    memory_document,
    skill_columns,
    skill_document,
)
from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.jstext import js_trim
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.ranking import RankDocument, RankOptions
from axmem_gui.core.ax.render import skills_index_lines, skills_index_list
from axmem_gui.core.ax.tokenize import Tokenizer
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint import LintOptions, lint_catalog, order_findings
from axmem_gui.core.lint import toprank as toprank_module
from axmem_gui.core.lint.batch import CatalogSearches
from axmem_gui.core.lint.budget import index_size
from axmem_gui.core.lint.identity import (
    duplicate_ids,
    invisible_characters,
    near_duplicate_ids,
    padded_and_empty_ids,
)
from axmem_gui.core.lint.incremental import LintSession
from axmem_gui.core.lint.model import EntryKind, Finding, finding
from axmem_gui.core.lint.searchability import per_entry_searchability_findings
from axmem_gui.core.lint.shared_index import IndexedCatalog, SharedIndex
from axmem_gui.core.lint.toprank import TopRanker
from tests.core.lint.test_lint_batch import IDS, WORDS, _catalog, _text
from tests.helpers.entries import with_text

PROFILE = load_profile()
TOKENIZER = Tokenizer(PROFILE)
Entry = Skill | Memory


def _document(entry: Entry) -> RankDocument:
    if isinstance(entry, Skill):
        return skill_document(entry, PROFILE)
    return memory_document(entry, PROFILE)


def _edited(rng: random.Random, entry: Entry) -> Entry:
    if isinstance(entry, Skill):
        field = rng.choice(("name", "description", "content"))
        return with_text(entry, field, _text(rng, 0, 12))
    return replace(entry, content=_text(rng, 0, 30))


def _patched(
    rng: random.Random, entries: Sequence[Entry], fresh: Sequence[Entry]
) -> tuple[SearchIndex, list[Entry], list[int]]:
    """An index of `entries` (bulk built), then patched as the app patches its own: some
    entries edited (same handle, same place), some removed, `fresh` ones added (new
    handles, at the end). Returns it, the entries now, and their handles."""
    index = SearchIndex(TOKENIZER)
    if isinstance(entries[0], Skill):
        handles = index.extend_columns(skill_columns(entries, PROFILE))  # type: ignore[arg-type]
    else:
        handles = index.extend_columns(memory_columns(entries, PROFILE))  # type: ignore[arg-type]
    now = list(zip(entries, handles, strict=True))
    for at in rng.sample(range(len(now)), len(now) // 4):
        entry, handle = now[at]
        edited = _edited(rng, entry)
        index.update(handle, _document(edited))
        now[at] = (edited, handle)
    for at in sorted(rng.sample(range(len(now)), len(now) // 8), reverse=True):
        index.remove(now.pop(at)[1])
    for entry in fresh:
        now.append((entry, index.add(_document(entry))))
    return index, [e for e, _ in now], [h for _, h in now]


def _queries(rng: random.Random, entries: Sequence[Entry]) -> dict[tuple[str, ...], str]:
    """Search terms -> a search string that has them."""
    texts = [js_trim(e.id) for e in entries]
    texts += [e.name for e in entries if isinstance(e, Skill)]
    texts += [_text(rng, 1, 4) for _ in range(60)]
    return {tuple(TOKENIZER.prose(t)): t for t in reversed(texts)}


@pytest.mark.parametrize("tiny_slices", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_ranker_over_the_index_postings_equals_the_ranker_over_decoded_terms(
    seed: int, tiny_slices: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if tiny_slices:  # postings turned into order by the marks, frequencies by slices
        monkeypatch.setattr(toprank_module, "_SLICE", 3)
    rng = random.Random(seed)
    catalog = _catalog(rng, 70, 260)
    extra = _catalog(rng, 8, 30)
    for entries, fresh in ((catalog.skills, extra.skills), (catalog.memories, extra.memories)):
        index, now, handles = _patched(rng, entries, fresh)
        assert len(index) == len(now)
        queries = _queries(rng, now)
        terms = {t for q in queries for t in q}
        orders = [(now, handles)]
        shuffled = list(zip(now, handles, strict=True))
        rng.shuffle(shuffled)  # document order unlike handle order
        orders.append(([e for e, _ in shuffled], [h for _, h in shuffled]))
        for docs, doc_handles in orders:
            ids = [e.id for e in docs]
            plain = TopRanker(ids, [index.terms_of(h) for h in doc_handles], terms)
            shared = TopRanker.of_index(index, doc_handles, terms)
            for tokens, query in queries.items():
                for k in (1, 2, 3, 5):
                    expected = [(h.id, h.raw) for h in plain.top(tokens, k)]
                    assert [(h.id, h.raw) for h in shared.top(tokens, k)] == expected
                    ties = [(h.id, h.raw) for h in plain.top(tokens, k, ties=True)]
                    assert [(h.id, h.raw) for h in shared.top(tokens, k, ties=True)] == ties
                    if docs is now:  # handle order is document order: as the index ranks
                        ranked = index.rank(query, RankOptions.best_effort(k)).ranked
                        assert expected == [(e.id, e.raw) for e in ranked], query


def test_the_ranker_refuses_handles_that_are_not_the_index() -> None:
    index = SearchIndex(TOKENIZER)
    handles = index.extend_columns(memory_columns([Memory("a-b", "x"), Memory("c", "y")], PROFILE))
    with pytest.raises(ValueError, match="every document"):
        TopRanker.of_index(index, handles[:1], ())
    with pytest.raises(ValueError, match="every document"):
        TopRanker.of_index(index, [handles[0], handles[0]], ())


@pytest.mark.parametrize("code_limit", [None, 5])
def test_only_terms_in_is_what_the_decoded_terms_say(
    code_limit: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also past the last one-character code (terms kept in a dict per document)."""
    if code_limit is not None:
        monkeypatch.setattr(index_codes, "_CODE_LIMIT", code_limit)
    rng = random.Random(3)
    catalog = _catalog(rng, 40, 200)
    stopwords_only = [Memory("the-and", "the and use"), Memory("x", ""), Memory("use", "a")]
    index, _, handles = _patched(rng, [*catalog.memories, *stopwords_only], ())
    stop = TOKENIZER.stopwords
    expected = [stop.issuperset(index.terms_of(h)) for h in handles]
    assert index.only_terms_in(handles, stop) == expected
    assert any(expected) and not all(expected)
    some = {"deploy", "vault", "mem", "the"}
    assert index.only_terms_in(handles, some) == [
        some.issuperset(index.terms_of(h)) for h in handles
    ]


def _lent(catalog: Catalog, skills: tuple[SearchIndex, list[int]],
          memories: tuple[SearchIndex, list[int]]) -> IndexedCatalog:  # fmt: skip
    return IndexedCatalog(
        catalog,
        SharedIndex(skills[0], dict(zip((s.id for s in catalog.skills), skills[1], strict=True))),
        SharedIndex(
            memories[0], dict(zip((m.id for m in catalog.memories), memories[1], strict=True))
        ),
    )


def _snapshot(index: SearchIndex) -> tuple[object, ...]:
    """Everything a reader could change by mistake."""
    return (
        dict(index._docs), dict(index._ids), dict(index._keys), list(index._order),
        {t: list(a) for t, a in index._ones.items()},
        {t: {f: list(a) for f, a in d.items()} for t, d in index._more.items()},
        dict(index._codes.terms), list(index._codes.freqs.of_code),
        {h: dict(d) for h, d in index._codes.wide.items()}, dict(index._handles_by_id),
    )  # fmt: skip


def _unique(entries: Sequence[Entry]) -> list[Entry]:
    return list({e.id: e for e in entries}.values())


@pytest.mark.parametrize("code_limit", [None, 40])
@pytest.mark.parametrize("seed", range(4))
def test_lint_of_a_patched_lent_index_equals_a_full_lint(
    seed: int, code_limit: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's index after edits, removals and additions, lent to a session: the same
    report as `lint_catalog`, and after `sync` with more edits too."""
    if code_limit is not None:  # terms past the last code, through the whole lint
        monkeypatch.setattr(index_codes, "_CODE_LIMIT", code_limit)
    rng = random.Random(seed)
    base = _catalog(rng, 60, 220)
    extra = _catalog(rng, 6, 20)
    skill_index, skills, skill_handles = _patched(
        rng, _unique(base.skills), [s for s in _unique(extra.skills) if s.id not in
                                    {x.id for x in base.skills}],
    )  # fmt: skip
    memory_index, memories, memory_handles = _patched(
        rng, _unique(base.memories), [m for m in _unique(extra.memories) if m.id not in
                                      {x.id for x in base.memories}],
    )  # fmt: skip
    catalog = Catalog(tuple(skills), tuple(memories))  # type: ignore[arg-type]
    options = LintOptions(budget_tokens=300, competition=seed != 3)
    lent = _lent(catalog, (skill_index, skill_handles), (memory_index, memory_handles))
    before = (_snapshot(skill_index), _snapshot(memory_index))
    session = LintSession(catalog, options, PROFILE, indexed=lent)
    assert session.report == lint_catalog(catalog, options, PROFILE)
    assert (_snapshot(skill_index), _snapshot(memory_index)) == before  # only read
    # more edits, patched into the index as the app does, then synced
    for _ in range(3):
        at = rng.randrange(len(skills))
        skills[at] = _edited(rng, skills[at])
        skill_index.update(skill_handles[at], _document(skills[at]))
        at = rng.randrange(len(memories))
        memories[at] = _edited(rng, memories[at])
        memory_index.update(memory_handles[at], _document(memories[at]))
        catalog = Catalog(tuple(skills), tuple(memories))  # type: ignore[arg-type]
        report = session.sync(
            _lent(catalog, (skill_index, skill_handles), (memory_index, memory_handles))
        )
        assert report == lint_catalog(catalog, options, PROFILE)
    assert session.full_runs == 1


def test_a_catalog_of_over_65536_distinct_words_lints_as_entry_by_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Term codes past U+FFFF (astral characters), stopwords among the last coded: the
    stopword test reads such codes too."""
    words = (f"w{n:x}q" for n in range(72_000))
    memories = [Memory(f"mem-{i}", " ".join(next(words) for _ in range(60))) for i in range(1200)]
    memories += [Memory("the-and", "the and use help"), Memory("vault-use", "the")]
    skills = (Skill("deploy-vault", "Deploy vault", "the vault", "w1q"),)
    catalog = Catalog(skills, tuple(memories))
    index = SearchIndex(TOKENIZER)
    handles = index.extend_columns(memory_columns(catalog.memories, PROFILE))
    assert len(index._codes.terms.of_code) > 72_000
    assert ord(index._codes.terms["the"]) > 0xFFFF
    expected = [TOKENIZER.stopwords.issuperset(index.terms_of(h)) for h in handles]
    assert index.only_terms_in(handles, TOKENIZER.stopwords) == expected
    assert expected[-2] and not expected[-1]
    with monkeypatch.context() as patch:
        patch.setattr(lint_package, "searchability_findings", per_entry_searchability_findings)
        report = lint_catalog(catalog)
    assert lint_catalog(catalog) == report
    lent = _lent(catalog, _index_of(catalog.skills), (index, handles))
    assert LintSession(catalog, indexed=lent).report == report
    unreachable = {f.entry_id for f in report.findings if f.code == "unreachable"}
    assert unreachable == {"the-and"}


def _index_of(skills: Sequence[Skill]) -> tuple[SearchIndex, list[int]]:
    index = SearchIndex(TOKENIZER)
    return index, index.extend_columns(skill_columns(skills, PROFILE))


def test_the_id_shortcut_never_hides_an_id_whose_words_are_not_searched() -> None:
    """`_plain_ids` says an id's search terms are among its id words without splitting
    them: check it against the words on ids of every kind of character."""
    rng = random.Random(5)
    alphabet = "abcxyz019-_.: \tABQ\\/é数ＡＢ٣\u200b\x1c"
    ids = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(4000)]
    ids += ["rollbackToken", "deploy-vault-2", "the-and", "a", "ab-cd", "ab\\cd", "x1-y2"]
    memories = [Memory(i, "") for i in dict.fromkeys(ids)]
    index = SearchIndex(TOKENIZER)
    handles = index.extend_columns(memory_columns(memories, PROFILE))
    searches = CatalogSearches("memory", memories, index, handles, PROFILE, TOKENIZER, False)
    distinct = [m.id for m in memories]
    plain = searches._plain_ids(distinct)
    assert any(plain) and not all(plain)
    for entry_id, sure in zip(distinct, plain, strict=True):
        if sure:
            tokens = TOKENIZER.prose(js_trim(entry_id))
            assert not tokens or not set(tokens).isdisjoint(TOKENIZER.identifier(entry_id))


# ----------------------------------------------------------- plain definitions


def _plain_duplicate_ids(ids: Sequence[str], kind: EntryKind) -> list[Finding]:
    positions: dict[str, list[int]] = defaultdict(list)
    for i, entry_id in enumerate(ids):
        positions[entry_id].append(i)
    return [
        finding(
            "duplicate-id", kind, entry_id,
            f"{len(where)} entries share this id (catalog positions "
            f"{', '.join(str(p + 1) for p in where)}); Ax shows each one but loads only the last",
            "Give each entry its own id, or delete the extra copies.", field="id",
        )
        for entry_id, where in positions.items()
        if len(where) > 1
    ]  # fmt: skip


def _quoted(ids: Sequence[str]) -> str:
    return ", ".join(f"'{i}'" for i in ids)


def _plain_groups(ids: Sequence[str], key_of: dict[str, str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for entry_id in dict.fromkeys(ids):
        groups[key_of[entry_id]].append(entry_id)
    return groups


def _plain_near_duplicate_ids(ids: Sequence[str], kind: EntryKind) -> list[Finding]:
    trimmed = {i: js_trim(i) for i in ids}
    out: list[Finding] = []
    for key, members in _plain_groups(ids, trimmed).items():
        if len(members) < 2 or not key:
            continue
        for entry_id in members:
            others = tuple(m for m in members if m != entry_id)
            out.append(finding(
                "duplicate-trimmed-id", kind, entry_id,
                f"same id as {_quoted(others)} once Ax trims white space ('{key}'): "
                "loading one replaces the other",
                "Remove the leading/trailing spaces and give the entries distinct ids.",
                field="id", related=others,
            ))  # fmt: skip
    folded = {i: trimmed[i].casefold() for i in ids}
    for key, members in _plain_groups(ids, folded).items():
        if not key:
            continue
        for entry_id in members:
            others = tuple(m for m in members if trimmed[m] != trimmed[entry_id])
            if others:
                out.append(finding(
                    "id-case-collision", kind, entry_id,
                    f"differs from {_quoted(others)} only by letter case: "
                    "easy to confuse, equal on case-insensitive disks (skills-dir export) and "
                    "to Ax's id tokenizer",
                    "Rename one of them so the ids differ by more than case.",
                    field="id", related=others,
                ))  # fmt: skip
    return out


def _plain_odd_ids(ids: Sequence[str], kind: EntryKind) -> list[tuple[str, str]]:
    """(id, code) of the findings `padded_and_empty_ids` makes, in order."""
    out = []
    for entry_id in dict.fromkeys(ids):
        if invisible_characters(kind, entry_id, "id", entry_id) is not None:
            out.append((entry_id, "invisible-characters"))
        core = js_trim(entry_id)
        if not core:
            out.append((entry_id, "empty-id"))
        elif core != entry_id:
            out.append((entry_id, "padded-id"))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_identity_checks_equal_their_plain_definitions(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ("deploy", "Deploy", "DEPLOY", "vault", " ", "\u3000", "\t", "\u200b", "\x1b",
              "ǅ", "ß", "SS", "-", "")  # fmt: skip
    ids = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) for _ in range(300)]
    ids += [rng.choice(IDS) for _ in range(20)] + [f"{w}-{i}" for i, w in enumerate(WORDS)]
    rng.shuffle(ids)
    for kind in ("skill", "memory"):
        assert duplicate_ids(ids, kind) == _plain_duplicate_ids(ids, kind)
        assert duplicate_ids(list(dict.fromkeys(ids)), kind) == []
        assert near_duplicate_ids(ids, kind) == _plain_near_duplicate_ids(ids, kind)
        assert [(f.entry_id, f.code) for f in padded_and_empty_ids(ids, kind)] == (
            _plain_odd_ids(ids, kind)
        )
    assert any(f.code == "id-case-collision" for f in near_duplicate_ids(ids, "skill"))
    assert any(f.code == "duplicate-trimmed-id" for f in near_duplicate_ids(ids, "skill"))


def _plain_order(
    findings: list[Finding], skills: list[Skill], memories: list[Memory]
) -> list[Finding]:
    severity = {"error": 0, "warning": 1, "info": 2}
    kind_order = {"catalog": 0, "skill": 1, "memory": 2}
    positions = {("skill", s.id): i for i, s in reversed(list(enumerate(skills)))}
    positions.update({("memory", m.id): i for i, m in reversed(list(enumerate(memories)))})
    return sorted(findings, key=lambda f: (
        severity[f.severity], kind_order[f.kind], positions.get((f.kind, f.entry_id or ""), -1)
    ))  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_report_order_is_severity_kind_then_first_position(seed: int) -> None:
    rng = random.Random(seed)
    catalog = _catalog(rng, 40, 120)
    skills, memories = list(catalog.skills), list(catalog.memories)
    report = lint_catalog(catalog, LintOptions(budget_tokens=50))
    findings = list(report.findings)
    findings += [replace(f, entry_id="not-an-entry") for f in findings[:5]]
    rng.shuffle(findings)
    size = index_size(skills, PROFILE)
    ordered = order_findings(findings, skills, memories, size, LintOptions())
    assert list(ordered.findings) == _plain_order(findings, skills, memories)


def test_index_lines_are_each_skills_own_line() -> None:
    rng = random.Random(2)
    skills = list(_catalog(rng, 80, 0).skills)
    skills.append(Skill("multi", "Multi line", "first\nsecond", ""))
    assert skills_index_lines(skills, PROFILE) == [skills_index_list([s], PROFILE) for s in skills]
