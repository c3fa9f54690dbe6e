"""`SessionService.import_files`: the GUI's import of several session files in one job. Each
file is read and checked on its own (a bad one is reported, the others go on); what is
stored goes in one transaction, so a cancel before the commit leaves nothing written."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.session.model import Session
from axmem_gui.services import sessions
from axmem_gui.services.sessions import SessionService
from axmem_gui.services.workspace import OpenWorkspace, init_workspace
from tests.helpers.session_docs import reparse, session_json
from tests.helpers.store import raw

SAMPLE_ID = "sample-ops-assistant"


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[OpenWorkspace]:
    workspace = init_workspace(tmp_path / "w.axmem", sample=True)
    yield workspace
    workspace.close()


def _file(session: Session, path: Path, **changes: Any) -> Path:
    sessions.write_session_file(dataclasses.replace(session, **changes), path)
    return path


def test_a_batch_reports_each_file_and_stores_what_it_can(
    ws: OpenWorkspace, tmp_path: Path
) -> None:
    doc = SessionService(raw(ws)).get(SAMPLE_ID)
    new = _file(doc, tmp_path / "new.axsession.json", id="new")
    same = _file(doc, tmp_path / "same.axsession.json")  # already stored
    taken = _file(doc, tmp_path / "taken.axsession.json", name="another run")
    bad = tmp_path / "bad.axsession.json"
    bad.write_text("{", encoding="utf-8")
    tampered_doc = session_json(doc)
    tampered_doc["id"] = "tampered"
    tampered_doc["exchanges"][0]["request"]["chat_prompt"][0]["content"] += " (edited)"
    tampered = tmp_path / "tampered.axsession.json"
    tampered.write_text(json.dumps(tampered_doc), encoding="utf-8")
    seen: list[tuple[float, str]] = []

    outcomes = SessionService(raw(ws)).import_files(
        [new, same, bad, taken, new, tampered], progress=lambda f, m: seen.append((f, m))
    )

    assert [o.path for o in outcomes] == [new, same, bad, taken, new, tampered]
    assert [o.result for o in outcomes] == [
        ("new", True, ""),
        (SAMPLE_ID, False, ""),
        None,
        (f"{SAMPLE_ID}-2", True, SAMPLE_ID),
        ("new", False, ""),  # the same file twice in one batch: stored once
        ("tampered", True, ""),
    ]
    assert str(bad) in outcomes[2].error
    assert [bool(o.warning) for o in outcomes] == [False] * 5 + [True]
    assert outcomes[5].warning == sessions.claims_warning(reparse(tampered_doc))
    assert outcomes[5].warning.startswith("the file does not hold what it claims (")
    assert raw(ws).sessions.get("tampered") is not None
    fractions = [f for f, _m in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert (0.0, "reading new.axsession.json (1 of 6)") in seen


def test_a_cancel_before_the_commit_writes_nothing(
    ws: OpenWorkspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = SessionService(raw(ws)).get(SAMPLE_ID)
    paths = [_file(doc, tmp_path / f"{i}.axsession.json", id=f"c{i}") for i in range(3)]
    before = [s.id for s in raw(ws).sessions.list()]
    stored: list[str] = []
    original = raw(ws).sessions.save

    def save(value: dict[str, Any]) -> str:
        stored.append(str(value["id"]))
        return original(value)

    monkeypatch.setattr(raw(ws).sessions, "save", save)
    with pytest.raises(sessions.SessionImportCancelled, match="nothing was imported"):
        SessionService(raw(ws)).import_files(paths, cancel=lambda: len(stored) == 3)
    assert stored == ["c0", "c1", "c2"]  # all written in the transaction, then rolled back
    assert not raw(ws).db.conn.in_transaction
    assert [s.id for s in raw(ws).sessions.list()] == before
