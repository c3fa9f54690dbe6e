"""A workload for the crash-safety tests, run as a subprocess and killed at chosen points.

It performs numbered operations of three kinds, each one transaction, and prints
`committed N` after each commit (flushed), so the parent knows what must survive:
  import N   - imports a JSON catalog file of SKILLS_PER_IMPORT new skills `imp-N-*`
  bulk N     - tags every imported skill with `bulk-N` in one transaction
  session N  - saves a session `sess-N` with EXCHANGES exchanges

With `HOLD_OP HOLD_WRITE` arguments it stops inside operation HOLD_OP's open transaction,
just before its HOLD_WRITE-th write statement (or its COMMIT, when it writes less), prints
`holding HOLD_OP` and waits on stdin: the parent kills it there, so a kill lands in the
middle of a transaction by construction rather than by a lucky sleep.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from axmem_gui.core.catalog import Skill
from axmem_gui.services.transfer import import_paths
from axmem_gui.services.workspace import OpenWorkspace, open_workspace
from tests.helpers.store import raw

SKILLS_PER_IMPORT = 60
EXCHANGES = 40
OPERATIONS = 30
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class Hold:
    """Stops the process inside operation `op`'s transaction (see the module docstring)."""

    def __init__(self, op: int, write: int) -> None:
        self.op, self.write = op, write
        self.current = -1
        self.writes = 0

    def trace(self, sql: str) -> None:
        if self.current != self.op:
            return
        statement = sql.lstrip().upper()
        if statement.startswith(WRITES):
            self.writes += 1
        if self.writes >= self.write or statement.startswith("COMMIT"):
            print(f"holding {self.op}", flush=True)
            sys.stdin.readline()  # the parent kills us here; stdin never answers
            # (sqlite3 swallows exceptions raised in a trace callback: leave at once)
            os._exit(3)


def kind_of(n: int) -> str:
    return ("import", "bulk", "session")[n % 3]


def main() -> None:
    path, scratch = Path(sys.argv[1]), Path(sys.argv[2])
    ws = open_workspace(path)
    hold = Hold(int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else None
    if hold is not None:
        raw(ws).db.conn.set_trace_callback(hold.trace)
    for n in range(OPERATIONS):
        if hold is not None:
            hold.current = n
        operate(ws, scratch, n)
        print(f"committed {n}", flush=True)
    print("done", flush=True)


def operate(ws: OpenWorkspace, scratch: Path, n: int) -> None:
    store = raw(ws)
    kind = kind_of(n)
    if kind == "import":
        source = scratch / f"import-{n}.json"
        source.write_text(
            json.dumps(
                {
                    "skillsCatalog": [
                        {
                            "id": f"imp-{n}-{i}",
                            "name": f"Imported {n} {i}",
                            "description": "batch import",
                            "content": "guide text " * 40,
                        }
                        for i in range(SKILLS_PER_IMPORT)
                    ]
                }
            ),
            encoding="utf-8",
        )
        plan, result = import_paths(ws, [source], "overwrite")
        assert result is not None, plan.summary()
    elif kind == "bulk":
        with store.transaction():
            for skill in store.skills.all():
                if skill.id.startswith("imp-"):
                    store.skills.upsert(
                        Skill(
                            skill.id,
                            skill.name,
                            skill.description,
                            skill.content,
                            (*skill.tags, f"bulk-{n}"),
                        )
                    )
    else:
        store.sessions.save(
            {
                "id": f"sess-{n}",
                "name": f"session {n}",
                "exchanges": [
                    {"stage": "actor.executor", "digest": f"d{i}", "body": "x" * 500}
                    for i in range(EXCHANGES)
                ],
            }
        )


if __name__ == "__main__":
    main()
