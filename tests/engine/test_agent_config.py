"""Agent configs: validation with clear messages, catalog filters, JSON round trip."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.session.agent_config import (
    agent_config_from_json,
    check_inputs,
    select_catalog,
)
from axmem_gui.core.session.signature import parse_signature_fields
from tests.engine.conftest import AGENT_JSON


def _config(**changes: Any) -> dict[str, Any]:
    value = copy.deepcopy(AGENT_JSON)
    value.update(changes)
    return value


def test_input_field_named_context_is_refused_with_the_reason() -> None:
    with pytest.raises(InputError) as err:
        agent_config_from_json(
            _config(signature="context:string, query:string -> answer:string", contextFields=[]),
            "agents.json",
        )
    message = str(err.value)
    assert message.startswith("agents.json 'triage': input field 'context' is not allowed")
    assert "recall()" in message and "rename it" in message


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"signature": "query:string"}, "exactly one '->'"),
        ({"contextFields": ["doc"]}, "contextFields names 'doc', which is not an input field"),
        ({"contextMap": {"maxChars": 0}}, "field 'maxChars' must be a positive integer, got 0"),
        (
            {"contextMap": {"infiniteEvolve": False}},
            "'evolveSteps' (a non-negative integer) is required",
        ),
        ({"maxActorSteps": "6"}, "field 'maxActorSteps' must be a positive integer, got a string"),
        ({"runtime": "pyodide"}, "field 'runtime' must be"),
        ({"catalog": {"skills": "some"}}, 'catalog.skills: must be "all", "none" or'),
        ({"relevanceRanking": "yes"}, "relevanceRanking' must be a boolean or an object"),
        ({"name": 3}, "field 'name' must be a string"),
    ],
)
def test_bad_configs_name_the_field(changes: dict[str, Any], expected: str) -> None:
    with pytest.raises(InputError) as err:
        agent_config_from_json(_config(**changes), "agents.json")
    assert expected in str(err.value)


def test_round_trip_and_defaults() -> None:
    config = agent_config_from_json(_config(), "a")
    assert agent_config_from_json(json.loads(json.dumps(config.to_json()))) == config
    assert config.input_fields == ("document", "query") and config.output_fields == ("answer",)
    minimal = agent_config_from_json({"name": "m", "signature": "q:string -> a:string"})
    assert minimal.context_map is None and minimal.max_actor_steps == 6
    assert minimal.to_json()["catalog"] == {"skills": "all", "memories": "all"}
    evolving = agent_config_from_json(
        _config(contextMap={"maxChars": 900, "infiniteEvolve": False, "evolveSteps": 2})
    )
    assert evolving.context_map is not None
    assert evolving.context_map.to_json() == {
        "maxChars": 900,
        "infiniteEvolve": False,
        "evolveSteps": 2,
    }


def test_the_shipped_sample_agents_load() -> None:
    text = (resources.files("axmem_gui") / "sample" / "agents.json").read_text(encoding="utf-8")
    for raw in json.loads(text):
        config = agent_config_from_json(raw, "sample/agents.json")
        assert config.runtime == "quickjs"


def test_tag_filters_select_entries(catalog: Catalog) -> None:
    config = agent_config_from_json(
        _config(catalog={"skills": {"tags": ["search", "release"]}, "memories": "none"})
    )
    chosen = select_catalog(catalog, config)
    assert [s.id for s in chosen.skills] == ["release-notes", "search-tuning"]
    assert chosen.memories == ()


def test_inputs_are_checked_against_the_signature() -> None:
    config = agent_config_from_json(_config(signature="document:string, note?:string -> a:string"))
    check_inputs(config, {"document": "x"})
    with pytest.raises(InputError, match="missing value for input field"):
        check_inputs(config, {"note": "x"})
    with pytest.raises(InputError, match="has no input field"):
        check_inputs(config, {"document": "x", "query": "y"})


def test_signature_field_names() -> None:
    fields = parse_signature_fields(
        '"Answers questions" document:string "the text, with commas", n?:number -> '
        'answer:string "one, two", score:number'
    )
    assert fields.inputs == ("document", "n") and fields.outputs == ("answer", "score")
