"""Index workers for tests: one that never answers, and a record of those started."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from axmem_gui.services.index_worker import IndexOffload, PartJob

#: A worker that reads nothing and never answers (as one stopped by SIGSTOP).
NEVER_ANSWERS = [sys.executable, "-c", "import threading; threading.Event().wait()"]


def started_jobs(monkeypatch: pytest.MonkeyPatch) -> list[PartJob]:
    """Every `PartJob` an `IndexOffload` starts from now on, in order."""
    started: list[PartJob] = []
    start = IndexOffload.start

    def recording(self: IndexOffload, *args: Any) -> PartJob:
        job = start(self, *args)
        started.append(job)
        return job

    monkeypatch.setattr(IndexOffload, "start", recording)
    return started
