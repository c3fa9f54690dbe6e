"""A difference printed to a terminal is shortened; its JSON keeps the whole diff (a
replayed session whose model sent a megabyte of code printed all of it on one line)."""

from __future__ import annotations

from axmem_gui.core.session.verify import (
    SHOWN_DIFF_LINES,
    SHOWN_LINE_CHARS,
    Difference,
    json_diff,
)


def test_a_megabyte_line_and_a_long_diff_are_shortened_in_text_only() -> None:
    code = "x = 1;" * 200_000  # 1.2 MB of model code: one diff line, `+  "code": "…"`
    diff = json_diff({"code": "print(1)"}, {"code": code}, "exchanges[0].response")
    one_line = Difference("exchanges[0].response", "prompt", "the replay differs", diff)
    text = one_line.render()
    assert len(text) < 4 * SHOWN_LINE_CHARS
    assert f"({len(code) + 13 - SHOWN_LINE_CHARS:,} more characters)" in text
    assert one_line.to_json()["diff"] == diff

    many = "\n".join(f"+line {i}" for i in range(5_000))
    long = Difference("trace", "derived", "the trace differs", many)
    shown = long.render().splitlines()
    assert shown[2:4] == ["+line 0", "+line 1"]
    assert shown[-1] == f"… {5_000 - SHOWN_DIFF_LINES:,} more lines (--json shows them all)"
    assert len(shown) == 2 + SHOWN_DIFF_LINES + 1
    short = Difference("x", "derived", "m", "-a\n+b")
    assert short.render() == "x: m\n\n-a\n+b\n"
