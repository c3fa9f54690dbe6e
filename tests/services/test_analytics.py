"""Usage analytics: loaded/used counts per entry across sessions, on the real sample
workspace and on hand-made sessions that pin the counting rules."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.session.analytics import (
    LOADED_NEVER_USED,
    MEMORY,
    NEVER_LOADED,
    SKILL,
    USED,
    render_usage,
    usage_from_sessions,
)
from axmem_gui.core.session.model import Callback, Session
from axmem_gui.services import analytics
from axmem_gui.services.sessions import SessionService
from axmem_gui.services.workspace import init_workspace
from tests.helpers.present import present
from tests.helpers.session_docs import callback, make_forward, make_session, reparse, session_json
from tests.helpers.store import raw

_callback = callback


def _session(session_id: str, created: str, *fws: list[Callback]) -> Session:
    forwards = tuple(make_forward(i, callbacks=tuple(cbs)) for i, cbs in enumerate(fws))
    return make_session(session_id, created_at=created, forwards=forwards)


CATALOG = Catalog(
    skills=(Skill("a", "A"), Skill("b", "B"), Skill("c", "C")),
    memories=(Memory("m1", "one"), Memory("m2", "two")),
)


def test_counts_are_per_forward_and_per_session() -> None:
    s1 = _session(
        "s1",
        "2026-01-01T00:00:00Z",
        # loaded twice in one forward counts once
        [_callback("loaded_skills", "a", "b"), _callback("loaded_skills", "a")],
        [_callback("loaded_skills", "a"), _callback("used_skills", "a")],
    )
    s2 = _session(
        "s2",
        "2026-02-01T00:00:00Z",
        [_callback("loaded_memories", "m1", "gone"), _callback("used_memories", "m1")],
    )
    s2 = dataclasses.replace(s2, forwards=(*s2.forwards, make_forward(1, status="not_run")))
    report = usage_from_sessions([s1, s2], CATALOG)
    assert (report.sessions, report.forwards) == (2, 3)
    a = report.entry(SKILL, "a")
    assert a is not None and (a.loaded, a.used, a.sessions, a.status) == (2, 1, 1, USED)
    b = report.entry(SKILL, "b")
    assert b is not None and (b.loaded, b.used, b.status) == (1, 0, LOADED_NEVER_USED)
    m1 = report.entry(MEMORY, "m1")
    assert m1 is not None and (m1.loaded, m1.used, m1.last_session) == (1, 1, "s2")
    gone = report.entry(MEMORY, "gone")
    assert gone is not None and not gone.in_catalog and gone.loaded == 1
    assert [f"{e.kind}:{e.id}" for e in report.never_loaded] == ["skill:c", "memory:m2"]
    assert [e.id for e in report.loaded_never_used] == ["b", "gone"]
    # catalog order first, then entries only the sessions know
    assert [e.id for e in report.entries] == ["a", "b", "c", "m1", "m2", "gone"]
    text = render_usage(report)
    assert "loaded but never used: 2" in text and "(not in the catalog now)" in text


def test_no_sessions_means_everything_is_never_loaded() -> None:
    report = usage_from_sessions([], CATALOG)
    assert report.sessions == 0
    assert all(e.status == NEVER_LOADED for e in report.entries)
    assert len(report.never_loaded) == 5


def test_sample_workspace_counts(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "s.axmem", sample=True)
    try:
        report = analytics.usage_report(raw(ws))
        # Every shipped sample session (scripted models A and B).
        docs = [session_json(SessionService(raw(ws)).get(s.id)) for s in raw(ws).sessions.list()]
        catalog = raw(ws).catalog()
    finally:
        ws.close()
    # Expected values come from the recorded callbacks themselves, not from constants.
    loaded: dict[tuple[str, str], int] = {}
    used: dict[tuple[str, str], int] = {}
    assert len(docs) == 2
    for fw in (fw for doc in docs for fw in doc["forwards"]):
        for cb in fw["callbacks"]:
            kind = SKILL if cb["kind"].endswith("skills") else MEMORY
            target = loaded if cb["kind"].startswith("loaded") else used
            for item_id in {p["id"] for p in cb["payload"]}:
                target[(kind, item_id)] = target.get((kind, item_id), 0) + 1
    assert loaded, "the sample session loads entries"
    for entry in report.entries:
        key = (entry.kind, entry.id)
        assert entry.loaded == loaded.get(key, 0), key
        assert entry.used == used.get(key, 0), key
    assert present(report.entry(MEMORY, "package-registries")).status == USED
    assert present(report.entry(SKILL, "feature-flags")).status == LOADED_NEVER_USED
    total = len(catalog.skills) + len(catalog.memories)
    assert len(report.never_loaded) == total - len(set(loaded) | set(used))
    assert json.loads(json.dumps(report.to_json()))["sessions"] == len(docs)


def test_token_totals(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "s.axmem", sample=True)
    try:
        doc = session_json(SessionService(raw(ws)).get("sample-ops-assistant"))
        other = copy.deepcopy(doc)
        other["id"] = "copy"
        for ex in other["exchanges"]:
            ex["usage"] = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
        SessionService(raw(ws)).save(reparse(other))
        totals = analytics.token_totals(raw(ws), ["sample-ops-assistant", "copy", "missing"])
    finally:
        ws.close()
    expected = sum(e["usage"]["prompt_tokens"] + e["usage"]["completion_tokens"]
                   for e in doc["exchanges"])  # fmt: skip
    assert totals["sample-ops-assistant"].tokens == expected
    assert totals["sample-ops-assistant"].calls == len(doc["exchanges"])
    assert totals["copy"].tokens == 11 * len(other["exchanges"])
    assert "missing" not in totals
