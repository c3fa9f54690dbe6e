"""Shared pieces for the trigger eval tests: a real workspace with the engine tests' agent
and catalog, and an eval set over it whose cases the scripted model gets right."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.evals.model import EvalSet, eval_set_from_json_value
from axmem_gui.services.workspace import OpenWorkspace, init_workspace, open_workspace
from tests.engine.conftest import AGENT_JSON, INPUTS, make_catalog
from tests.helpers.store import raw

SET_JSON: dict[str, Any] = {
    "name": "triage-triggers",
    "agent": "triage",
    "repeat": 2,
    "threshold": 0.5,
    "cases": [
        {
            "name": "most severe",
            "inputs": dict(INPUTS[0]),
            "skills": {"load": ["incident-triage"], "avoid": ["release-notes"]},
            "memories": {"load": ["mem-checkout-owner"], "avoid": []},
        },
        {
            "name": "search incidents",
            "inputs": dict(INPUTS[1]),
            "skills": {"load": ["search-tuning"], "avoid": []},
        },
    ],
}


def make_set(**changes: Any) -> EvalSet:
    value = copy.deepcopy(SET_JSON)
    value.update(changes)
    return eval_set_from_json_value(value, "test set")


@pytest.fixture
def ws_path(tmp_path: Path) -> Path:
    path = tmp_path / "evals.axmem"
    ws = init_workspace(path)
    try:
        for skill in make_catalog().skills:
            raw(ws).skills.upsert(skill)
        for memory in make_catalog().memories:
            raw(ws).memories.upsert(memory)
        raw(ws).agents.save(AGENT_JSON["name"], copy.deepcopy(AGENT_JSON))
        ws.evals.save_set(make_set())
    finally:
        ws.close()
    return path


@pytest.fixture
def ws(ws_path: Path) -> Iterator[OpenWorkspace]:
    workspace = open_workspace(ws_path)
    try:
        yield workspace
    finally:
        workspace.close()
