"""An agent worker that fails on purpose, for the tests of the runner and of whoever uses
it (the CLI, the GUI): the real worker, told to crash, abort, run out of memory, hang or
exit while the model's code of its n-th execution runs.

`faulty_command("segv", 1)` is the command an `AgentRunner` starts it with: the failure
comes in the code of model call #1 (for a replay, of the call served second), right after
the worker told its parent the code started, as a crash of the runtime inside the code
would.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parents[2])


def faulty_command(how: str, at: int = 0) -> list[str]:
    return [
        sys.executable,
        "-P",
        "-c",
        "import sys; sys.path.insert(0, sys.argv.pop(1))\n"
        "from tests.helpers.faulty_worker import main; main()",
        ROOT,
        f"{how}@{at}",
    ]


def bring_on(how: str) -> None:
    if how == "segv":
        import ctypes

        ctypes.string_at(0)
    elif how == "abort":
        os.abort()
    elif how == "memory":
        bytearray(1 << 42)
    elif how == "hang":
        while True:  # as a native loop no limit reaches: the GIL is free, nothing moves
            time.sleep(3600)
    elif how == "exit":
        os._exit(7)


def main() -> None:
    how, at = sys.argv[1].split("@")
    from axmem_gui.services import agent_protocol, agent_worker

    calls, starts = [0], [0]
    send = agent_worker._Writer.send

    def faulty_send(self: Any, message: dict[str, Any]) -> None:
        send(self, message)
        kind = message.get("type")
        if kind == agent_protocol.EXCHANGE:
            calls[0] += 1
        if kind == agent_protocol.CODE and message.get("running") is True:
            starts[0] += 1
            # a live run streams its calls; a replay does not: its n-th code then
            if calls[0] == int(at) + 1 or (not calls[0] and starts[0] == int(at) + 1):
                bring_on(how)

    agent_worker._Writer.send = faulty_send  # type: ignore[method-assign]
    raise SystemExit(agent_worker.main())
