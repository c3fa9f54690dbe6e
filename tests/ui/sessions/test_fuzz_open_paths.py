"""Issue: fuzzing the GUI's open paths. Mutated real session files go through the Sessions
page's import (errors are dialogs, never tracebacks), those it takes open in the viewer,
and mutated skill guides go through the markdown preview. Counted with the other fuzz
inputs (tests/reliability/test_fuzz_real_files.py)."""

from __future__ import annotations

import functools
import random
from collections import Counter
from pathlib import Path
from typing import Any

from axmem_gui.ui.editor.preview import SafeMarkdownBrowser
from axmem_gui.ui.sessions.controller import SessionsFeature
from tests.helpers.store import raw
from tests.reliability import mutate
from tests.reliability.test_fuzz_real_files import (
    FIXTURE_SKILLS,
    SEED,
    check_outcome,
    real_documents,
)
from tests.ui.sessions.conftest import import_files

MARKDOWN_ATTACKS = [
    "![z](/dev/zero) ![p](file:///etc/passwd) [l](javascript:alert(1))",
    "<img src=/dev/zero><script>x</script>",
    # The long hostile shapes have their own tests (test_inert_preview.py); here a taste.
    "a\n=\n" * 300,
    "#\n" * 500,
    "---\n" * 300,
    "[" * 300 + "x" + "]" * 300,
    "| a |\n|---|\n" + "| 1 |\n" * 300,
    "```\n" + "x\n" * 500,
    "\x00\x1b]0;t\x07\u202e",
]


def test_sessions_page_imports_and_opens_mutated_sessions(
    feature: SessionsFeature,
    errors: list[tuple[str, str]],
    tmp_path: Path,
    qtbot: Any,
    fuzz_counts: Counter[str],
    fuzz_scale: int,
) -> None:
    docs = real_documents()
    for i in range(300 * fuzz_scale):
        r = random.Random(SEED * 3_000_017 + i)
        path = tmp_path / f"s{i % 3}.axsession.json"
        path.write_bytes(mutate.json_input(r, docs["session-head"]))
        shown = len(errors)
        imported = check_outcome(
            f"gui import #{i}", functools.partial(import_files, qtbot, feature, [path])
        )
        assert isinstance(imported, list)
        for _title, message in errors[shown:]:
            assert "Traceback" not in message and str(path) in message, (SEED, i, message)
        for session_id in imported:
            viewer = check_outcome(
                f"gui open #{i}", functools.partial(feature.open_session, session_id)
            )
            assert viewer is not None
            viewer.grab()
            feature.page.close_tab(viewer)
            raw(feature.controller.workspace).sessions.delete(session_id)
        fuzz_counts["gui sessions"] += 1


def test_preview_renders_mutated_skill_guides(
    qtbot: Any, fuzz_counts: Counter[str], fuzz_scale: int
) -> None:
    seeds = [p.read_text("utf-8") for p in sorted(FIXTURE_SKILLS.glob("*/SKILL.md"))]
    browser = SafeMarkdownBrowser()
    qtbot.addWidget(browser)
    browser.show()
    for i in range(1000 * fuzz_scale):
        r = random.Random(SEED * 11_000_027 + i)
        text = r.choice(seeds)
        if r.random() < 0.5:
            at = r.randrange(len(text))
            text = text[:at] + r.choice(MARKDOWN_ATTACKS) + text[at:]
        else:
            text = mutate.mutate_text(r, text.encode()).decode("utf-8", "replace")
        with qtbot.waitSignal(browser.render_finished, timeout=60_000):
            browser.set_markdown_source(text, immediately=True)
        assert not browser.rendering
        fuzz_counts["gui previews"] += 1
