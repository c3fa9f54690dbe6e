"""The shipped sample session replays identically offline, and is what the generator
records today."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.session.format import session_from_json_text
from axmem_gui.core.session.model import Session
from axmem_gui.engine.sample_session import SAMPLE_FILE, main, record_sample_session
from axmem_gui.services import sessions


@pytest.fixture(scope="module")
def sample() -> Session:
    text = (resources.files("axmem_gui") / "sample" / SAMPLE_FILE).read_text(encoding="utf-8")
    return session_from_json_text(text, SAMPLE_FILE)


def test_sample_session_replays_identically_offline(
    sample: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the sample replay tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    report = sessions.replay(sample)
    assert report.identical, report.render()
    assert report.calls_replayed == len(sample.exchanges)


def test_sample_shows_two_context_map_updates(sample: Session) -> None:
    assert sample.status == "complete" and len(sample.forwards) == 2
    updates = [f.context_map_update for f in sample.forwards]
    assert [u.status for u in updates if u] == ["updated", "updated"]
    assert [u.step for u in updates if u] == [1, 2]
    assert updates[1] and updates[1].changed and updates[1].item_tags
    assert len(sample.map_snapshots or ()) == 3
    assert sample.provider.api_key_source == {"kind": "placeholder"}


def test_committed_sample_matches_the_generator(sample: Session, tmp_path: Path) -> None:
    """If this fails, the prompts or the search changed: regenerate the sample with
    `python -m axmem_gui.engine.sample_session` and commit it."""
    fresh = record_sample_session()
    assert [e.digest for e in fresh.exchanges] == [e.digest for e in sample.exchanges]
    assert [f.output for f in fresh.forwards] == [f.output for f in sample.forwards]
    out = tmp_path / "s.axsession.json"
    assert main(["-o", str(out)]) == 0
    assert sessions.read_session_file(out).id == sample.id


def test_second_sample_session_is_persona_b_and_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second shipped session (scripted model B, same requests) replays offline and is
    what the generator records, so Compare works on the sample from the first start."""
    from axmem_gui.engine.sample_session import SAMPLE_B_FILE, SAMPLE_B_SESSION_ID

    text = (resources.files("axmem_gui") / "sample" / SAMPLE_B_FILE).read_text(encoding="utf-8")
    doc = session_from_json_text(text, SAMPLE_B_FILE)
    assert doc.id == SAMPLE_B_SESSION_ID and doc.provider.model == "scripted-b"
    assert doc.status == "complete"
    report = sessions.replay(doc)
    assert report.identical, report.render()
    fresh = record_sample_session("b")
    assert [e.digest for e in fresh.exchanges] == [e.digest for e in doc.exchanges]
    first = session_from_json_text(
        (resources.files("axmem_gui") / "sample" / SAMPLE_FILE).read_text(encoding="utf-8"),
        SAMPLE_FILE,
    )
    assert [f.inputs for f in first.forwards] == [f.inputs for f in doc.forwards]
    assert not sessions.compare(first, doc).identical_prompts


def _key_orders(value: Any, path: str = "") -> list[tuple[str, tuple[str, ...]]]:
    """Every object's keys, in order, by place (list items by position)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    if isinstance(value, dict):
        out.append((path, tuple(value)))
        for k, v in value.items():
            out += _key_orders(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _key_orders(v, f"{path}[{i}]")
    return out


def test_a_fresh_recording_is_written_as_the_committed_sample_was(sample: Session) -> None:
    """The typed recorder writes the file format the committed sample has: every object
    with the same keys in the same order (nulls included), down to the exchanges."""
    from axmem_gui.core.session.format import session_to_json_text

    fresh = json.loads(session_to_json_text(record_sample_session()))
    committed = json.loads(session_to_json_text(sample))
    assert _key_orders(fresh) == _key_orders(committed)
