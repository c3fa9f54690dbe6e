"""Entry point of the PyInstaller bundle: one program, two executables.

The bundle holds `axmem-gui` (the desktop app) and `axmem` (the CLI), built from this one
script so they share a single analysis; the name the program was started as picks which.
`--index-worker` makes either one the worker that indexes part of a big catalog
(axmem_gui/services/index_worker.py); `--agent-worker` the child process an agent run or
replay happens in (axmem_gui/services/agent_worker.py); `--lock-holder` the process that
holds an open workspace's shared locks for the app (axmem_gui/store/lockholder.py).
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> int:
    if sys.argv[1:2] == ["--index-worker"]:  # the app indexing part of a big catalog
        from axmem_gui.services.index_worker import main as index_worker_main

        return index_worker_main()
    if sys.argv[1:2] == ["--agent-worker"]:  # an agent run's child process
        from axmem_gui.services.agent_worker import main as agent_worker_main

        return agent_worker_main()
    if sys.argv[1:2] == ["--lock-holder"]:  # the app's guard on an open workspace
        from axmem_gui.store.lockholder import child_main

        return child_main(sys.argv[2:])
    if Path(sys.executable).stem.lower() == "axmem":
        from axmem_gui.cli.main import main as cli_main

        return cli_main()
    from axmem_gui.app import main as gui_main

    return gui_main()


if __name__ == "__main__":
    raise SystemExit(main())
