"""Map text format: template, section matching, line classification, ids, lengths."""

from __future__ import annotations

import pytest

from axmem_gui.core.contextmap.text import (
    INITIAL_TEXT,
    SECTIONS,
    LineKind,
    collapse_blank_lines,
    item_number,
    js_trim,
    match_item_line,
    normalize_text,
    parse_map,
    remove_item_lines,
    section_for_name,
    utf16_length,
)


def test_initial_template_is_the_557_char_ax_template() -> None:
    assert len(INITIAL_TEXT) == 557
    assert INITIAL_TEXT.startswith(
        "## CONTEXT ROADMAP\n(Index of what the context contains and where to find it.)\n\n"
    )
    assert INITIAL_TEXT.endswith(
        "## ERROR PATTERNS\n(Concrete failure modes observed while processing this context.)\n"
    )
    assert [line for line in INITIAL_TEXT.split("\n") if line.startswith("## ")] == [
        f"## {s.title}" for s in SECTIONS
    ]
    assert [s.slug for s in SECTIONS] == ["cr", "cu", "dc", "ps", "rr", "ep"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("context_understanding", "context_understanding"),
        ("CONTEXT UNDERSTANDING", "context_understanding"),
        ("Context-Understanding", "context_understanding"),
        ("  context \t -- understanding  ", "context_understanding"),
        ("Domain Constants:", "domain_constants"),
        ("ERROR_PATTERNS", "error_patterns"),
        ("reusable\u3000results", "reusable_results"),  # ideographic space is JS whitespace
        ("reusable\ufeffresults", "reusable_results"),  # so is U+FEFF
        ("cu", None),
        ("context understanding extra", None),
        ("context roadmap ::", None),
        ("", None),
        ("reusable\x1cresults", None),  # Python whitespace, not JS whitespace
    ],
)
def test_section_for_name(name: str, expected: str | None) -> None:
    found = section_for_name(name)
    assert (found.name if found else None) == expected


def test_parse_classifies_lines_and_files_items_under_sections() -> None:
    text = (
        "[cu-00007] before any header\n"
        "## Parsing-Schema\n"
        "(how to read it)\n"
        "\n"
        "  [ps-00001]   indented item  \n"
        "[ps-00002]\n"
        "### Notes I made up\n"
        "[xx-9] under an unknown header\n"
        "#### error patterns:\n"
        "[ep] no number\n"
        "[] not an item\n"
        "[a]b\n"
    )
    parsed = parse_map(text)
    kinds = [line.kind for line in parsed.lines]
    assert kinds == [
        LineKind.ITEM,
        LineKind.HEADER,
        LineKind.DECORATION,
        LineKind.BLANK,
        LineKind.ITEM,
        LineKind.DECORATION,  # an id without content is no item
        LineKind.HEADER,
        LineKind.ITEM,
        LineKind.HEADER,
        LineKind.ITEM,
        LineKind.DECORATION,
        LineKind.ITEM,
        LineKind.BLANK,
    ]
    items = [(i.id, i.section, i.content) for i in parsed.items]
    assert items == [
        ("cu-00007", "context_understanding", "before any header"),
        ("ps-00001", "parsing_schema", "indented item"),
        ("xx-9", "parsing_schema", "under an unknown header"),  # unknown header keeps section
        ("ep", "error_patterns", "no number"),
        ("a", "error_patterns", "b"),
    ]
    assert parsed.lines[6].section is None
    assert parsed.next_item_number == 10
    assert parsed.missing_sections == (
        "context_roadmap",
        "context_understanding",
        "domain_constants",
        "reusable_results",
    )


def test_item_lines_follow_the_js_pattern() -> None:
    assert match_item_line("[cu-1] a ] b") == ("cu-1", "a ] b")
    assert match_item_line("[[x] y") == ("[x", "y")
    assert match_item_line("[cu-1]\u2028 after a leading separator") == (
        "cu-1",
        "after a leading separator",
    )
    # JS `.` stops at CR/LS/PS, so these are not items in Ax.
    assert match_item_line("[cu-1] a\rb") is None
    assert match_item_line("[cu-1] a\u2029b") is None
    assert match_item_line("x [cu-1] y") is None


def test_ids_numbers_and_next_number() -> None:
    assert item_number("cu-00012") == 12
    assert item_number("a-b-7") == 7
    assert item_number("cu-1x") is None
    assert item_number("cu-") is None
    assert item_number("cu-\u0663") is None  # Arabic-Indic digit: JS \d is ASCII only
    assert parse_map("[x] a\n[y-3x] b\n").next_item_number == 1
    assert parse_map("[x-41] a\n[cu-00002] b\n").next_item_number == 42


def test_normalize_text_trims_and_fills_blank_maps() -> None:
    assert normalize_text("  \n## A\nx \n\n") == "## A\nx\n"
    assert normalize_text(" \t\n ") == INITIAL_TEXT
    assert normalize_text("\ufeffhello\u00a0") == "hello\n"
    assert js_trim("\x1chi\x1c") == "\x1chi\x1c"


def test_utf16_length_counts_code_units() -> None:
    assert utf16_length("abc") == 3
    assert utf16_length("é") == 1
    assert utf16_length("😀") == 2
    assert utf16_length("\ud800") == 1  # a lone surrogate, as JSON can carry


def test_collapse_and_remove() -> None:
    assert collapse_blank_lines("a\n\n\n  \nb\n  \n\nc\n\n") == "a\n\nb\n  \n\nc\n"
    text = "## A\n[a-1] one\n\n[a-2] two\n\n[a-3] three\n"
    assert remove_item_lines(text, ["a-2"]) == "## A\n[a-1] one\n\n[a-3] three\n"
    assert remove_item_lines("[a-1] x\n[a-1]\n", ["a-1"]) == "\n"
