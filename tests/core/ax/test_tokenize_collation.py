"""Tokenizers and localeCompare ordering beyond the golden probes."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from axmem_gui.core.ax.collation import collation_key, locale_compare, locale_sorted
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.ax.tokenize import Drop, Tokenizer

TOKENIZER = Tokenizer(load_profile())


def test_prose_tokens() -> None:
    assert TOKENIZER.prose("How do I ship a release?") == ["ship", "release"]
    assert TOKENIZER.prose("deploys deploy") == ["deploys", "deploy"]  # no stemming
    assert TOKENIZER.prose("path\\to\\file") == ["path\\to\\file"]  # backslash is kept
    assert TOKENIZER.prose("x \U0001f680 y") == ["\U0001f680"]  # 2 UTF-16 units: kept
    assert TOKENIZER.prose("v2 2024 3.11") == ["v2"]
    assert TOKENIZER.prose("café ＡＰＩ") == ["cafe", "api"]
    assert TOKENIZER.prose("a\x1cb") == ["a\x1cb"]  # not JS whitespace


def test_raw_prose_says_why_words_are_dropped() -> None:
    raw = TOKENIZER.raw_prose("fix the 2024 x bugs")
    assert [(t.text, t.dropped) for t in raw] == [
        ("fix", Drop.STOPWORD),
        ("the", Drop.STOPWORD),
        ("2024", Drop.NUMBER),
        ("x", Drop.SHORT),
        ("bugs", None),
    ]


def test_identifier_tokens() -> None:
    assert TOKENIZER.identifier("searchDocsByID") == ["search", "docs", "by", "id"]
    assert TOKENIZER.identifier("XMLHttpRequest") == ["xml", "http", "request"]
    assert TOKENIZER.identifier("mem:user-prefs-v2") == ["mem", "user", "prefs", "v2"]
    assert TOKENIZER.identifier("café-crème") == ["caf", "cr", "me"]
    assert TOKENIZER.identifier("the-task") == ["the", "task"]  # stopwords stay


def test_locale_order_examples() -> None:
    ids = ["zeta2", "b", "Zeta", "é", "a-b", "_x", "A", "10", "9", "a", "ab", "aB", "e"]
    assert locale_sorted(ids, key=str) == [
        "_x", "10", "9", "a", "A", "a-b", "ab", "aB", "b", "e", "é", "Zeta", "zeta2",
    ]  # fmt: skip
    assert locale_compare("a", "B") == -1
    assert locale_compare("B", "a") == 1
    assert locale_compare("x", "x") == 0


def test_equal_keys_keep_input_order() -> None:
    # U+0000 is completely ignorable: both strings compare equal, sort is stable
    items = [("a\x00", 1), ("a", 2), ("a\x00", 3)]
    assert collation_key("a\x00") == collation_key("a")
    assert [n for _, n in locale_sorted(items, key=lambda i: i[0])] == [1, 2, 3]


@settings(max_examples=200)
@given(st.lists(st.text(max_size=6), max_size=12))
def test_sorting_is_a_total_order_consistent_with_compare(items: list[str]) -> None:
    ordered = locale_sorted(items, key=str)
    for left, right in itertools.pairwise(ordered):
        assert locale_compare(left, right) <= 0


_TEXT_ALPHABET = st.sampled_from(
    [*"abcXYZ019 .,-_'!\t\n", "\x1c", "\x85", "\u00a0", "é", "ﬁ", "\U0001f680", "İ"]
)


@settings(max_examples=300)
@given(st.lists(st.one_of(_TEXT_ALPHABET, st.sampled_from(["the ", "fix ", "task "])), max_size=40))
def test_prose_counts_equal_counting_prose_tokens(pieces: list[str]) -> None:
    from collections import Counter

    text = "".join(pieces)
    assert TOKENIZER.prose_counts(text) == dict(Counter(TOKENIZER.prose(text)))


def _identifier_reference(text: str) -> list[str]:
    """Ax's splitIdentifierWords, spelled out step by step."""
    import re

    out: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", text):
        chunk = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", chunk)
        chunk = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", chunk)
        out.extend(w.lower() for w in re.split(r"\s+", chunk))
    return [w for w in out if len(w) > 1 and not re.fullmatch(r"\d+", w)]


@settings(max_examples=300)
@given(st.text(alphabet="abAB09-_:.é ", max_size=20))
def test_identifier_tokens_equal_the_reference(text: str) -> None:
    assert TOKENIZER.identifier(text) == _identifier_reference(text)
