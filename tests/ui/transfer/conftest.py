"""Import/export GUI tests: real source files written by hand in each format, a real
workspace, the real task runner; only the modal dialogs are replaced (their `ask`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.formats import ImportPlan, Policy
from axmem_gui.services.transfer import ExportResult
from axmem_gui.store import Workspace
from axmem_gui.ui.dialogs import ErrorDialog
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.transfer.actions import TRANSFER, TransferActions
from axmem_gui.ui.transfer.export_dialog import ExportResultDialog
from axmem_gui.ui.transfer.jobs import ImportPreview
from axmem_gui.ui.transfer.preview_dialog import ImportPreviewDialog
from tests.helpers.store import raw

WAIT_MS = 20_000


def transfer(window: MainWindow) -> TransferActions:
    actions = window.feature(TRANSFER)
    assert isinstance(actions, TransferActions)
    return actions


def _ts_value(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _ts_object(pairs: dict[str, object]) -> str:
    # Unquoted keys, as people write TypeScript.
    return "{ " + ", ".join(f"{k}: {_ts_value(v)}" for k, v in pairs.items()) + " }"


def skill_fields(s: Skill) -> dict[str, object]:
    out: dict[str, object] = {
        "id": s.id,
        "name": s.name,
        "description": s.description,
        "content": s.content,
    }
    if s.tags:
        out["tags"] = list(s.tags)
    return out


def memory_fields(m: Memory) -> dict[str, object]:
    out: dict[str, object] = {"id": m.id, "content": m.content}
    if m.tags:
        out["tags"] = list(m.tags)
    return out


def write_source(fmt: str, folder: Path, skills: list[Skill], memories: list[Memory]) -> Path:
    """A catalog source in `fmt`, written the way a person would write it."""
    folder.mkdir(parents=True, exist_ok=True)
    if fmt == "ax-json":
        path = folder / "catalog.json"
        value = {
            "skillsCatalog": [skill_fields(s) for s in skills],
            "memoriesCatalog": [memory_fields(m) for m in memories],
        }
        path.write_text(json.dumps(value, indent=2), encoding="utf-8")
        return path
    if fmt == "ts":
        path = folder / "catalog.ts"
        lines = ["import type { AxAgentCatalogSkill } from '@ax-llm/ax';", ""]
        lines.append("export const skillsCatalog: AxAgentCatalogSkill[] = [")
        lines += [f"  {_ts_object(skill_fields(s))}," for s in skills]
        lines.append("];")
        lines.append("export const memoriesCatalog = [")
        lines += [f"  {_ts_object(memory_fields(m))}," for m in memories]
        lines.append("];")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    if fmt == "jsonl":
        path = folder / "memories.jsonl"
        text = "".join(json.dumps(memory_fields(m)) + "\n" for m in memories)
        path.write_text(text, encoding="utf-8")
        return path
    if fmt == "skills-dir":
        root = folder / "skills"
        for s in skills:
            skill_dir = root / s.id
            skill_dir.mkdir(parents=True)
            head = f"---\nname: {json.dumps(s.name)}\ndescription: {json.dumps(s.description)}\n"
            if s.tags:
                head += f"metadata:\n  tags: {json.dumps(', '.join(s.tags))}\n"
            (skill_dir / "SKILL.md").write_text(f"{head}---\n\n{s.content}", encoding="utf-8")
        return root
    raise ValueError(fmt)


@dataclass
class Recorder:
    """What the replaced dialogs saw."""

    previews: list[ImportPreview] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    exports: list[ExportResult] = field(default_factory=list)
    #: How the fake preview answers: a policy to plan with, or a function of the preview.
    answer: Policy | Callable[[ImportPreview], ImportPlan | None] | None = "skip"


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    rec = Recorder()

    def ask_preview(
        cls: type, parent: object, preview: ImportPreview, policy: Policy = "skip"
    ) -> ImportPlan | None:
        rec.previews.append(preview)
        if rec.answer is None:
            return None
        if callable(rec.answer):
            return rec.answer(preview)
        return preview.plan(rec.answer)

    def show_error(cls: type, parent: object, title: str, message: str) -> None:
        rec.errors.append((title, message))

    def show_export(cls: type, parent: object, result: ExportResult) -> None:
        rec.exports.append(result)

    monkeypatch.setattr(ImportPreviewDialog, "ask", classmethod(ask_preview))
    monkeypatch.setattr(ErrorDialog, "show", classmethod(show_error))
    monkeypatch.setattr(ExportResultDialog, "show", classmethod(show_export))
    yield rec


def wait_idle(qtbot: QtBot, window: MainWindow) -> None:
    actions = transfer(window)
    qtbot.waitUntil(lambda: not actions.busy, timeout=WAIT_MS)


def stored(window: MainWindow) -> tuple[list[Skill], list[Memory], int]:
    """The store as another connection sees it (what is really on disk)."""
    with Workspace.open(window.controller.path, read_only=True) as ws:
        return raw(ws).skills.all(), raw(ws).memories.all(), raw(ws).revisions.count()
