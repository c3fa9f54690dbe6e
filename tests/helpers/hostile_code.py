"""Hostile model code and the session files that carry it (issue 26).

Each piece is what a model (or whoever wrote a shared session file) may put in its first
actor reply. `hostile_session` records a run whose model writes it, through axllm's own
client answered in process by the scripted model, so the file is what a live run records.
"""

from __future__ import annotations

import time

from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.core.session.code_limits import CodeLimits
from axmem_gui.core.session.model import Session
from axmem_gui.engine.scripted_model import ScriptedTransport
from axmem_gui.services import sessions
from tests.engine.conftest import AGENT_JSON, INPUTS, make_catalog

DAY_MS = 86_400_000.0


def bomb_code(hour_ms: float) -> str:
    """Does nothing before `hour_ms`; after it builds the deep object and loops forever."""
    return (
        f"if (Date.now() > {hour_ms:.0f}) {{ let o = {{}};"
        " for (let i = 0; i < 200000; i++) o = {a: o}; globalThis.boom = o;"
        " while (true) {} } else { console.log('dormant'); }"
    )


HOSTILE_CODE = {
    "loop": "while (true) {}",
    "deep": "let o = {}; for (let i = 0; i < 200000; i++) o = {a: o};",
    "hog": "globalThis.a = []; for (let i = 0; i < 4000; i++) a.push('x'.repeat(2 ** 20) + i);",
    "huge": "var x = 1;\n" * 100_000,
}

#: What the recorded limit hit says for each (none for the deep object: its snapshot
#: fails quietly, as an unserialisable global always did, and the run goes on).
LIMIT_KIND = {"loop": "time", "deep": None, "hog": "memory", "huge": "code_size"}

#: Small limits, so the tests end quickly; recorded in the file, so replays use them too.
TEST_LIMITS = CodeLimits(time_s=0.5, memory_mib=64, code_kib=64)


def hostile_session(
    name: str,
    *,
    limits: CodeLimits = TEST_LIMITS,
    clock_ms: float | None = None,
) -> Session:
    """A one-forward session whose model writes `HOSTILE_CODE[name]` first, then goes on
    as the scripted model does. "bomb" is a time bomb whose hour passed an hour ago,
    recorded a day before it (its clock stopped then): dormant in the recording, it goes
    off in any replay now."""
    code = HOSTILE_CODE.get(name, "")
    if name == "bomb":
        hour = time.time() * 1000 - 3_600_000
        code, clock_ms = bomb_code(hour), hour - DAY_MS
    config = agent_config_from_json(AGENT_JSON, "agent")
    return sessions.run_agent(
        config,
        make_catalog(),
        INPUTS[:1],
        ProviderSettings("scripted", "scripted-a"),
        transport=ScriptedTransport([code]),
        name=f"hostile: {name}",
        limits=limits,
        clock_ms=clock_ms,
    )


#: A catastrophic regular expression: a native loop QuickJS never interrupts.
REDOS_CODE = "/(a+)+$/.test('a'.repeat(40) + 'b');"


def stuck_session() -> Session:
    """A session whose first code never ends (REDOS_CODE): recorded in a child process,
    which its runner stopped at its deadline. A replay of it is stuck the same way."""
    from axmem_gui.services.agent_runner import AgentRunner, Deadlines

    runner = AgentRunner(deadlines=Deadlines(code_factor=1, code_grace_s=1), keep_warm=False)
    try:
        return sessions.run_agent(
            agent_config_from_json(AGENT_JSON, "agent"),
            make_catalog(),
            INPUTS[:1],
            ProviderSettings("scripted", "scripted-a"),
            transport=ScriptedTransport([REDOS_CODE]),
            name="hostile: stuck",
            limits=TEST_LIMITS,
            runner=runner,
        )
    finally:
        runner.shutdown()
