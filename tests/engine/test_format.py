"""The .axsession.json loader: clear errors naming file and field, never a traceback."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axmem_gui.core.errors import InputError
from axmem_gui.core.session.compare import compare_sessions, render_comparison
from axmem_gui.core.session.format import (
    parse_session,
    session_from_json_text,
    session_summary,
    session_to_json_text,
)
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.retrieval import AxExactBackend
from axmem_gui.core.session.whatif import render_whatif, whatif_retrieval
from tests.engine.conftest import make_catalog
from tests.helpers.session_docs import session_json

BACKEND = AxExactBackend()


def _error(value: Any) -> str:
    with pytest.raises(InputError) as err:
        parse_session(value, "s.axsession.json")
    return str(err.value)


def test_valid_session_passes_and_summarises(
    recorded: Session, recorded_json: dict[str, Any]
) -> None:
    assert parse_session(recorded_json) == recorded
    summary = session_summary(recorded)
    assert summary["exchanges"] == 16 and summary["forwards"] == 2
    assert summary["agent"] == "triage" and summary["provider"] == "openai-compatible"


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.update(format="other"), "s.axsession.json: not an axsession file"),
        (lambda d: d.update(version=3), "written by a newer axmem (axsession version 3)"),
        (lambda d: d.update(version="1"), "field 'version' must be an integer"),
        (lambda d: d.pop("id"), "s.axsession.json: field 'id' is missing"),
        (
            lambda d: d.update(status="done"),
            "field 'status' must be 'complete' or 'incomplete', got 'done'",
        ),
        (lambda d: d["versions"].pop("axllm"), "versions: field 'axllm' is missing"),
        (
            lambda d: d["exchanges"][3].update(digest=5),
            "exchanges[3]: field 'digest' must be a string, got a number",
        ),
        (
            lambda d: d["exchanges"][3].update(index=7),
            "exchanges[3]: field 'index' is 7, expected 3",
        ),
        (
            lambda d: d["exchanges"][2].update(forward=9),
            "exchanges[2]: field 'forward' is 9, but the session has 2 forward(s)",
        ),
        (
            lambda d: d["exchanges"][1]["request"]["chat_prompt"].append("hi"),
            "exchanges[1].request.chat_prompt[",
        ),
        (
            lambda d: d["exchanges"][0].update(response=None, error=None),
            "exchanges[0]: an exchange needs a 'response' or an 'error'",
        ),
        (
            lambda d: d["forwards"][1].update(inputs=[]),
            "forwards[1]: field 'inputs' must be an object, got a list",
        ),
        (
            lambda d: d["forwards"][0]["searches"][0].update(kind="find"),
            "forwards[0].searches[0]: field 'kind' must be 'discover' or 'recall', got 'find'",
        ),
        (
            lambda d: d["catalog"]["skills"][0].pop("name"),
            "catalog: skills[0] 'incident-triage': field 'name' is missing",
        ),
        (lambda d: d["exchanges"][0].update(usage={"prompt_tokens": True}), "prompt_tokens"),
        # The viewer's banner iterated a number here (found by fuzzing the open paths).
        (lambda d: d.update(warnings=3), "field 'warnings' must be a list, got a number"),
        (lambda d: d.update(warnings=[{}]), "field 'warnings[0]' must be a string, got an object"),
    ],
)
def test_bad_fields_are_named(recorded_json: dict[str, Any], mutate: Any, expected: str) -> None:
    mutate(recorded_json)
    assert expected in _error(recorded_json)


def test_not_json_and_not_an_object() -> None:
    with pytest.raises(InputError, match=r"x.json: not valid JSON \(line 1, column 2"):
        session_from_json_text("{nope", "x.json")
    assert "expected a JSON object, got a list" in _error([1, 2])
    with pytest.raises(InputError, match=r"nested too deeply|not valid JSON"):
        session_from_json_text("[" * 100000, "deep.json")


def _mutations(doc: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Replace one value somewhere in a valid document with arbitrary JSON."""
    paths: list[tuple[Any, ...]] = []

    def walk(value: Any, path: tuple[Any, ...], depth: int) -> None:
        paths.append(path)
        if depth > 5:
            return
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, (*path, k), depth + 1)
        elif isinstance(value, list):
            for i, v in enumerate(value[:3]):
                walk(v, (*path, i), depth + 1)

    walk(doc, (), 0)
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=6,
    )
    return st.tuples(st.sampled_from(paths[1:]), json_values)


@pytest.fixture(scope="module")
def small_doc(recorded_once: tuple[Session, int]) -> dict[str, Any]:
    doc = session_json(recorded_once[0])
    doc["exchanges"] = doc["exchanges"][:3]
    for fw in doc["forwards"]:
        fw.pop("trace", None)
        fw.pop("action_log", None)
    return doc


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_fuzzed_documents_load_or_fail_cleanly(
    small_doc: dict[str, Any], data: st.DataObject
) -> None:
    path, value = data.draw(_mutations(small_doc))
    doc = json.loads(json.dumps(small_doc))
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        session = parse_session(doc, "fuzz")
    except InputError as exc:
        assert str(exc).startswith("fuzz")
        return
    # Whatever the loader accepts, the viewers and what-if can work with, and it is
    # written back as it was read.
    session_summary(session)
    render_comparison(compare_sessions(parse_session(small_doc), session))
    render_whatif(whatif_retrieval(session, make_catalog(), BACKEND))
    assert session_to_json_text(session) == session_to_json_text(parse_session(doc, "again"))
    assert json.loads(session_to_json_text(session)) == doc


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=200))
def test_fuzzed_text_never_raises_anything_but_input_error(text: str) -> None:
    with contextlib.suppress(InputError):
        session_from_json_text(text, "t")


def test_round_trip_is_stable(recorded: Session, recorded_json: dict[str, Any]) -> None:
    text = session_to_json_text(recorded)
    assert json.loads(text) == recorded_json
    assert session_to_json_text(session_from_json_text(text)) == text


def test_update_record_of_a_map_whose_scores_are_not_an_object() -> None:
    # A session file's map state is hostile: `scores` as a list crashed the update record
    # (dict() of a list of strings; found by fuzzing mutated real sessions).
    from axmem_gui.core.session.contextmap_update import describe_update

    record = describe_update([], {"text": "", "steps": 0}, {"text": "", "scores": ["ab"]})
    assert record.scores == {}
