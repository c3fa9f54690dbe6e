"""The pre-parse depth check of the one JSON reader (core/jsontext): exact (the first
bracket over the limit, by line and column) and quick on big input. Refusing 16 MB of
`[]` stepped through 16 million brackets in Python (about 2 s); the walk now looks up
chunks, so a repeated shape costs one lookup per 256 brackets."""

from __future__ import annotations

import json
import random

import pytest

from axmem_gui.core import jsontext
from axmem_gui.core.jsontext import MAX_DEPTH, JsonLimitError, check_json_limits


def _reference(text: str, limit: int) -> int | None:
    """The first offset where the depth (outside strings) goes over `limit`."""
    depth = 0
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return i
        elif ch in "]}":
            depth -= 1
    return None


def _random_json_like(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randrange(1, 3000)):
        parts.append(rng.choice(["[", "{", "]", "}", "[]", ", ", "1", '"a[{"', '"\\"["', "\né"]))
    return "".join(parts)


@pytest.mark.parametrize("seed", range(40))
def test_the_place_of_the_first_bracket_over_the_limit_is_exact(seed: int) -> None:
    rng = random.Random(seed)
    text = _random_json_like(rng)
    limit = rng.choice([3, 10, 50, 200])
    expected = _reference(text, limit)
    try:
        check_json_limits(text, max_depth=limit)
    except JsonLimitError as exc:
        assert exc.pos == expected, (seed, limit)
        assert exc.msg == f"nested more than {limit} levels deep"
    else:
        assert expected is None, (seed, limit)


def test_line_and_column_point_at_the_bracket_after_strings_and_newlines() -> None:
    text = '{"a": "[[[[",\n "b": "é' + "{" * 300 + '",\n "c": ' + "[" * (MAX_DEPTH + 5)
    with pytest.raises(JsonLimitError) as caught:
        check_json_limits(text)
    assert (caught.value.lineno, caught.value.colno) == (3, 6 + MAX_DEPTH)  # "{" is level 1
    assert text[caught.value.pos] == "["


def test_sixteen_megabytes_of_brackets_are_walked_a_chunk_at_a_time() -> None:
    jsontext._large_walk.cache_clear()
    check_json_limits("[]" * 8_000_000)  # depth 1: accepted
    assert jsontext._large_walk.cache_info().misses <= 2  # 62,500 chunks, one shape
    text = "[]" * 8_000_000 + "[" * (MAX_DEPTH + 1)
    with pytest.raises(JsonLimitError) as caught:
        check_json_limits(text)
    assert caught.value.pos == 16_000_000 + MAX_DEPTH
    with pytest.raises(json.JSONDecodeError):  # and the parser never sees it
        jsontext.parse(text)


def test_the_block_wise_scans_find_what_the_whole_text_scans_found() -> None:
    """The scans a worker makes over a 20 MB file go a block (or a string) at a time, so
    the GUI thread gets the GIL in between: they must find exactly what one scan found."""
    from axmem_gui.core import jsontext
    from axmem_gui.core.jsout import _SEARCH_BLOCK, has_surrogate

    size = 2 * _SEARCH_BLOCK + 5
    assert not has_surrogate("x" * size) and not has_surrogate("")
    for at in (0, _SEARCH_BLOCK - 1, _SEARCH_BLOCK, 2 * _SEARCH_BLOCK, size - 1):
        text = "x" * at + "\udc00" + "x" * (size - at - 1)
        assert has_surrogate(text), at
    for text in (
        '{"a": "b\\"c", "d": [1, "e\\\\"], "f": "',  # escapes, and an unterminated string
        '"' * 7 + "[]{}" + '"x\ny"',
        "",
        "no strings at all [[{}]]",
        '{"k": "' + "v" * (3 * _SEARCH_BLOCK) + '"}',
    ):
        assert jsontext._without_strings(text) == jsontext._STRING.sub('""', text), text[:40]
