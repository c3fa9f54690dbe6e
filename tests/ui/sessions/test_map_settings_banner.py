"""A session that continued a map whose own settings were not the ones that applied says
so in the viewer's banner (issue #29; on the old code the carried settings won silently)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.services import sessions
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.sessions.controller import SessionsFeature
from tests.engine.conftest import AGENT_JSON, INPUTS, make_catalog
from tests.fakes.fake_openai_server import FakeOpenAIServer, settings_for


def _agent(**context_map: Any) -> Any:
    value = copy.deepcopy(AGENT_JSON)
    value["contextMap"] = context_map
    return agent_config_from_json(value, "test agent")


def test_the_banner_names_the_map_settings_that_applied(
    window: MainWindow,
    feature: SessionsFeature,
    server: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    settings = settings_for(server)
    catalog = make_catalog()
    frozen = _agent(maxChars=600, infiniteEvolve=False, evolveSteps=2)
    made = sessions.run_agent(frozen, catalog, [dict(i) for i in INPUTS], settings)
    start = made.forwards[-1].context_map_after
    three = _agent(maxChars=600, infiniteEvolve=False, evolveSteps=3)
    session = sessions.run_agent(three, catalog, [dict(INPUTS[0])], settings, context_map=start)
    feature.sessions().save(session)
    feature.reload()
    viewer = feature.open_session(session.id)
    assert viewer is not None
    window.resize(1400, 860)
    banner = viewer.banner.text()
    assert viewer.banner.isVisibleTo(viewer)
    assert "Warning: the context map the run started from says evolveSteps 2" in banner
    assert "the agent's contextMap (evolveSteps 3) applied instead" in banner
    window.grab().save(str(tmp_path / "banner.png"))
