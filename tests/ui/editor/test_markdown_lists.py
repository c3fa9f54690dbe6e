"""Issue #30: fenced code inside a list item renders as code. The sample skill
`secrets-rotation` showed "bash vault kv put …" as inline text and cut its numbered list
in two (Python-Markdown reads fences only at the margin)."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from axmem_gui.ui.catalog.feature import CATALOG
from axmem_gui.ui.editor.markdown_render import fences_in_lists, render_markdown
from axmem_gui.ui.main_window import MainWindow


def _sample_skill(skill_id: str) -> str:
    text = (resources.files("axmem_gui") / "sample" / "catalog.json").read_text("utf-8")
    return next(str(s["content"]) for s in json.loads(text)["skills"] if s["id"] == skill_id)


def _code_blocks(html: str) -> list[str]:
    blocks = re.findall(r"<pre>(.*?)</pre>", html, re.S)
    return [re.sub(r"<[^>]+>", "", b) for b in blocks]


def test_the_sample_rotation_guide_shows_its_command_as_a_code_block() -> None:
    html = render_markdown(_sample_skill("secrets-rotation"))
    [code] = _code_blocks(html)
    assert code.strip() == "vault kv put secret/checkout-api/db password=@new-password.txt"
    assert "<code>bash" not in html  # not inline code with the language in front
    assert 'start="3"' not in html  # one numbered list, not two
    [numbered] = re.findall(r"<ol>(.*?)</ol>", html, re.S)
    assert numbered.count("<li") == 4


def test_fences_in_lists_at_every_indentation_and_level() -> None:
    cases = {
        "1. Run:\n   ```sh\n   make test\n   ```\n2. Done\n": "make test",
        "- Run:\n  ```\n  a = 1\n\n  b = 2\n  ```\n- Done\n": "a = 1\n\nb = 2",
        "- a\n    - Run:\n      ~~~python\n      x = 1\n      ~~~\n": "x = 1",
        "  ```\n  indented, no list\n  ```\n": "indented, no list",
    }
    for text, code in cases.items():
        assert [b.strip() for b in _code_blocks(render_markdown(text))] == [code], text


def test_what_is_not_a_fenced_block_in_a_list_is_left_alone() -> None:
    for text in (
        "1. Run `make`\n2. Done\n",  # inline code
        "- never closed:\n  ```sh\n  make\n",  # an open fence stays as written
        "Para\n\n        ```\n        shown fence\n        ```\n",  # indented code
    ):
        assert fences_in_lists(text) == text or "```" in render_markdown(text), text
    assert fences_in_lists("- never closed:\n  ```sh\n  make\n") == (
        "- never closed:\n  ```sh\n  make\n"
    )


def test_the_editor_preview_shows_the_sample_command_as_a_block(
    window: MainWindow, qtbot: Any
) -> None:
    page = window.feature(CATALOG).pages["skills"]
    assert page.select_id("secrets-rotation")
    preview = page.form.content.preview
    qtbot.waitUntil(lambda: "vault kv put" in preview.toPlainText())
    lines = preview.toPlainText().splitlines()
    assert any(line.strip().startswith("vault kv put") for line in lines)
    assert not any("bash vault" in line for line in lines)
