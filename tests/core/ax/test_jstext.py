"""JavaScript string semantics: UTF-16 lengths and slices, \\s, trim."""

from __future__ import annotations

from axmem_gui.core.ax.jstext import (
    JS_WHITESPACE,
    collapse_whitespace,
    js_slice_count,
    js_split_nonempty,
    js_trim,
    utf16_len,
    utf16_slice,
    utf16_tail,
)

ROCKET = "\U0001f680"


def test_utf16_length_counts_astral_characters_twice() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len(ROCKET) == 2
    assert utf16_len("é" + ROCKET) == 3


def test_utf16_slice_can_split_a_surrogate_pair() -> None:
    text = "ab" + ROCKET + "cd"
    assert utf16_slice(text, 3) == "ab\ud83d"  # lone high surrogate, like JS
    assert utf16_slice(text, 4) == "ab" + ROCKET
    assert utf16_slice(text, 100) == text
    assert utf16_tail(text, 4) == "cd"
    assert utf16_slice("x" * 700, 600) == "x" * 600


def test_js_whitespace_class_differs_from_python() -> None:
    # U+FEFF is JS whitespace, U+0085 and U+001C-U+001F are not
    assert js_trim("\ufeff x \u3000") == "x"
    assert js_trim("\x85x\x85") == "\x85x\x85"
    assert js_split_nonempty("a\x1cb c") == ["a\x1cb", "c"]
    assert js_split_nonempty("a\u00a0b\tc\u2028d") == ["a", "b", "c", "d"]
    assert js_split_nonempty("a\x85b") == ["a\x85b"]
    assert collapse_whitespace(" a \n\n b\ufeff") == " a b "
    assert "\x85" not in JS_WHITESPACE and "\ufeff" in JS_WHITESPACE


def test_array_slice_count_follows_javascript() -> None:
    assert js_slice_count(2, 5) == 2
    assert js_slice_count(10, 5) == 5
    assert js_slice_count(0, 5) == 0
    assert js_slice_count(-1, 5) == 4  # slice(0, -1) drops the last
    assert js_slice_count(1.9, 5) == 1
    assert js_slice_count(float("inf"), 5) == 5
    assert js_slice_count(float("nan"), 5) == 0
