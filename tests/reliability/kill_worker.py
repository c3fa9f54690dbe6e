"""A workload for the crash-safety tests, run as a subprocess and killed at random points.

It performs numbered operations of three kinds, each one transaction, and prints
`committed N` after each commit (flushed), so the parent knows what must survive:
  import N   - imports a JSON catalog file of SKILLS_PER_IMPORT new skills `imp-N-*`
  bulk N     - tags every imported skill with `bulk-N` in one transaction
  session N  - saves a session `sess-N` with EXCHANGES exchanges
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from axmem_gui.core.catalog import Skill
from axmem_gui.services.transfer import import_paths
from axmem_gui.store import Workspace

SKILLS_PER_IMPORT = 60
EXCHANGES = 40
OPERATIONS = 30


def kind_of(n: int) -> str:
    return ("import", "bulk", "session")[n % 3]


def main() -> None:
    path, scratch = Path(sys.argv[1]), Path(sys.argv[2])
    ws = Workspace.open(path)
    for n in range(OPERATIONS):
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
            with ws.transaction():
                for skill in ws.skills.all():
                    if skill.id.startswith("imp-"):
                        ws.skills.upsert(
                            Skill(
                                skill.id,
                                skill.name,
                                skill.description,
                                skill.content,
                                (*skill.tags, f"bulk-{n}"),
                            )
                        )
        else:
            ws.sessions.save(
                {
                    "id": f"sess-{n}",
                    "name": f"session {n}",
                    "exchanges": [
                        {"stage": "actor.executor", "digest": f"d{i}", "body": "x" * 500}
                        for i in range(EXCHANGES)
                    ],
                }
            )
        print(f"committed {n}", flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()
