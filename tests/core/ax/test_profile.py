"""The Ax profile (package data) and the extraction helpers of its build script."""

from __future__ import annotations

import pytest

from axmem_gui.core.ax.profile import available_versions, load_profile
from axmem_gui.core.errors import InputError
from tools.ax_profile.build_profile import (
    ExtractionError,
    if_block,
    parse_js_string,
    parse_js_string_array,
    parse_regex_class,
)


def test_default_profile_constants() -> None:
    profile = load_profile()
    assert profile.version == "24.0.21" and "24.0.21" in available_versions()
    assert (profile.skill_content_chars, profile.memory_content_chars) == (600, 600)
    assert (profile.skill_search_top_k, profile.memory_search_top_k) == (2, 3)
    assert profile.memory_hint_snippet_chars == 80
    d = profile.rank_defaults
    assert (d.top_k, d.min_score, d.margin_ratio, d.min_docs) == (3, 0.08, 0.15, 2)
    assert "\\" not in profile.punctuation and "-" in profile.punctuation
    assert {"task", "fix", "ui", "ax"} <= profile.stopwords
    assert "{{ if isJavaScriptRuntime }}" in profile.templates["executor"]["skills"]


def test_unknown_version_is_a_clear_error() -> None:
    with pytest.raises(InputError, match=r"no Ax profile for version '1\.0\.0'"):
        load_profile("1.0.0")


def test_js_literal_parsing() -> None:
    source = r'x"a\n\u2014\x41\'"'
    assert parse_js_string(source, 1) == ("a\n—A'", len(source))
    assert parse_js_string("`multi\nline \\`tick\\``", 0)[0] == "multi\nline `tick`"
    with pytest.raises(ExtractionError):
        parse_js_string("`${x}`", 0)
    assert parse_js_string_array('["a", \'b\',"c"]', 0) == (["a", "b", "c"], 14)
    assert parse_regex_class(r"!\-.\]a-c") == ["!", "-", ".", "]", "a", "b", "c"]


def test_if_block_respects_nesting() -> None:
    text = "pre {{ if a }}A{{ if b }}B{{ /if }}C{{ /if }} post"
    assert if_block(text, "a") == "{{ if a }}A{{ if b }}B{{ /if }}C{{ /if }}"
    with pytest.raises(ExtractionError):
        if_block(text, "zz")
