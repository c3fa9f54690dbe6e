"""How an app's own test replays a recorded session of its axllm agent (the example in
triage_agent.py): offline, no key, every recorded call used, the same answers. The
`axsession_replay` fixture comes from axmem_gui.recorder's pytest plugin."""

from __future__ import annotations

from typing import Any

from tests.recorder.example_app.triage_agent import (
    FORWARD_OPTIONS,
    SESSION,
    SIGNATURE,
    triage_options,
)

NOWHERE = "http://127.0.0.1:9/directory"  # the directory is not needed: its answers are recorded


def test_the_triage_agent_answers_as_recorded(axsession_replay: Any, network_guard: Any) -> None:
    network_guard.block()
    player = axsession_replay(SESSION, functions=["lookupOwner"])
    triage = player.agent(SIGNATURE, triage_options(NOWHERE))
    for i in range(len(player.forwards)):
        assert triage.forward(
            player.client(), player.inputs(i), dict(FORWARD_OPTIONS)
        ) == player.output(i)
    assert network_guard.connections == 0
