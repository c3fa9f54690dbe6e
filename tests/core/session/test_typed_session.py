"""The typed session: every session file the project carries is read and written back
byte for byte; keys the reader does not know, and the order keys were written in, survive
at every level; what the parser refuses it names as before."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.core.records import to_json_value
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.session.format import (
    parse_session,
    session_from_json_text,
    session_to_json_text,
)
from axmem_gui.core.session.model import Forward, RunError, Session
from tests.helpers.present import present
from tests.helpers.session_docs import make_forward, make_session

REPO = Path(__file__).resolve().parents[3]
SESSION_FILES = sorted(
    {
        *REPO.joinpath("axmem_gui", "sample").glob("*.axsession.json"),
        *REPO.joinpath("tests").rglob("*.axsession.json"),
        # what the TypeScript recorder for the apps' own agents writes (recorders/ax-ts)
        *REPO.joinpath("recorders", "ax-ts", "example", "sessions").glob("*.axsession.json"),
    }
)
SAMPLE = REPO / "axmem_gui" / "sample" / "session-ops-assistant.axsession.json"


def test_the_project_carries_session_files() -> None:
    assert len(SESSION_FILES) >= 2
    # both app recorders' committed sessions are among them
    names = {p.relative_to(REPO).as_posix() for p in SESSION_FILES}
    assert "recorders/ax-ts/example/sessions/triage.axsession.json" in names
    assert "tests/recorder/example_app/sessions/triage.axsession.json" in names


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: p.name)
def test_every_session_file_round_trips_byte_for_byte(path: Path) -> None:
    text = path.read_text("utf-8")
    session = session_from_json_text(text, str(path))
    assert session_to_json_text(session) == text
    # and the typed reading holds what the file holds
    assert json.loads(session_to_json_text(session)) == json.loads(text)


def _sample() -> dict[str, Any]:
    return dict(json.loads(SAMPLE.read_text("utf-8")))


#: One place of each kind of object in the document, where a key is planted.
PLACES = {
    "session": lambda d: d,
    "origin": lambda d: d["origin"],
    "versions": lambda d: d["versions"],
    "agent": lambda d: d["agent"],
    "catalog": lambda d: d["catalog"],
    "catalog skill": lambda d: d["catalog"]["skills"][0],
    "provider": lambda d: d["provider"],
    "search": lambda d: d["search"],
    "forward": lambda d: d["forwards"][0],
    "map update": lambda d: d["forwards"][0]["context_map_update"],
    "turn": lambda d: d["forwards"][0]["turns"][0],
    "search call": lambda d: d["forwards"][0]["searches"][0],
    "search result": lambda d: d["forwards"][0]["searches"][0]["results"][0],
    "callback": lambda d: d["forwards"][0]["callbacks"][0],
    "map snapshot": lambda d: d["contextMapSnapshots"][1],
    "exchange": lambda d: d["exchanges"][0],
    "usage": lambda d: d["exchanges"][0]["usage"],
    "http attempt": lambda d: d["exchanges"][0]["http_attempts"][0],
}


@pytest.mark.parametrize("place", list(PLACES))
def test_an_unknown_key_survives_where_it_was(place: str) -> None:
    doc = _sample()
    target = PLACES[place](doc)
    # In the middle of the object, not at its end: the writer keeps the order it read.
    items = list(target.items())
    target.clear()
    target.update([*items[:1], ("x-from-a-newer-axmem", {"kept": [1, "two"]}), *items[1:]])
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    session = session_from_json_text(text, "planted")
    assert session_to_json_text(session) == text


def test_key_order_is_kept_as_written() -> None:
    doc = _sample()
    r = random.Random(27)
    for obj in (doc, doc["forwards"][0], doc["exchanges"][3], doc["provider"]):
        items = list(obj.items())
        r.shuffle(items)
        obj.clear()
        obj.update(items)
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    assert session_to_json_text(session_from_json_text(text, "shuffled")) == text


def test_absent_and_null_stay_apart() -> None:
    doc = _sample()
    del doc["error"]  # absent at the top, null in a forward
    doc["forwards"][0]["error"] = None
    session = parse_session(copy.deepcopy(doc), "s")
    assert session.error is None and session.forwards[0].error is None
    written = json.loads(session_to_json_text(session))
    assert "error" not in written and written["forwards"][0]["error"] is None


def test_a_field_set_in_code_is_written_after_the_keys_read() -> None:
    doc = _sample()
    del doc["name"]
    session = parse_session(doc, "s")
    named = json.loads(session_to_json_text(_renamed(session, "given later")))
    assert named["name"] == "given later" and list(named)[-1] == "name"


def _renamed(session: Session, name: str) -> Session:
    import dataclasses

    return dataclasses.replace(session, name=name)


def test_records_built_in_code_are_read_back_the_same() -> None:
    error = RunError(kind="network", type="ProviderFailure", message="refused", status=None)
    forward = make_forward(0, status="failed", error=error, output=None)
    session = make_session("built", status="incomplete", error=error, forwards=(forward,))
    again = parse_session(json.loads(session_to_json_text(session)), "built")
    assert again == session
    assert to_json_value(again.forwards) == to_json_value(session.forwards)
    # optional keys that are None are left out of a record built in code
    assert "status" not in present(session.error).to_json()


def test_an_agent_config_keeps_keys_it_does_not_know() -> None:
    value = {
        "name": "a",
        "signature": "q:string -> a:string",
        "plannedByANewerAxmem": {"x": 1},
    }
    config = agent_config_from_json(value, "agent")
    assert config.extra == {"plannedByANewerAxmem": {"x": 1}}
    assert config.to_json()["plannedByANewerAxmem"] == {"x": 1}
    assert agent_config_from_json(config.to_json(), "again") == config


def test_a_session_whose_agent_this_axmem_refuses_still_opens() -> None:
    doc = _sample()
    doc["agent"]["maxActorSteps"] = 0  # refused by the agent parser, not by the session's
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    session = session_from_json_text(text, "s")
    assert session.agent.config is None
    assert "maxActorSteps" in session.agent.problem
    assert session_to_json_text(session) == text  # written back as it was


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        # Fields the typed reader relies on are checked with the same words as the rest.
        (lambda d: d["forwards"][0].update(started_at=5), "forwards[0]: field 'started_at'"),
        (
            lambda d: d["forwards"][0]["turns"][0].update(call_index="x"),
            "forwards[0].turns[0]: field 'call_index' must be an integer",
        ),
        (
            lambda d: d["forwards"][0].update(exchange_range=[1]),
            "forwards[0]: field 'exchange_range' must be a list of two integers",
        ),
        (
            lambda d: d["forwards"][0]["context_map_update"].update(added="cu-1"),
            "forwards[0].context_map_update: field 'added' must be a list",
        ),
        (
            lambda d: d["exchanges"][2]["http_attempts"][0].update(url=3),
            "exchanges[2].http_attempts[0]: field 'url' must be a string",
        ),
        (lambda d: d["provider"].update(stream="yes"), "provider: field 'stream'"),
        (lambda d: d.update(origin=[]), "field 'origin' must be an object"),
        (
            lambda d: d["contextMapSnapshots"][0].pop("state"),
            "contextMapSnapshots[0]: field 'state' is missing",
        ),
    ],
)
def test_what_the_typed_reader_relies_on_is_checked_at_the_edge(
    mutate: Any, expected: str
) -> None:
    doc = _sample()
    mutate(doc)
    with pytest.raises(InputError) as err:
        parse_session(doc, "s.axsession.json")
    assert str(err.value).startswith("s.axsession.json: ")
    assert expected in str(err.value)


def test_forward_helpers_read_the_typed_callbacks() -> None:
    session = session_from_json_text(SAMPLE.read_text("utf-8"), "sample")
    first: Forward = session.forwards[0]
    loaded = first.callback_ids("loaded_skills")
    assert loaded and len(loaded) == len(set(loaded))
    assert [s.kind for s in first.search_calls] == ["discover", "recall"]
    assert session.exchanges_of(1)[0].index == present(first.exchange_range)[1]
