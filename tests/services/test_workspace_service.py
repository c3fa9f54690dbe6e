from __future__ import annotations

from pathlib import Path

import pytest

from axmem_gui.core.errors import WorkspaceError
from axmem_gui.services.workspace import (
    default_workspace_path,
    init_workspace,
    open_workspace,
)
from tests.helpers.store import raw

AX_DOC_SKILLS = {"release-checklist", "incident-response"}
AX_DOC_MEMORIES = {"deploy-window", "user-prefs"}


def test_first_start_creates_and_seeds_default(private_data_dir: Path) -> None:
    path = default_workspace_path()
    assert path == private_data_dir / "default.axmem"
    assert not path.exists()
    with open_workspace(None) as ws:
        assert ws.path == path
        skills = raw(ws).skills.all()
        memories = raw(ws).memories.all()
        assert len(skills) >= 12 and len(memories) >= 12
        assert {s.id for s in skills} >= AX_DOC_SKILLS
        assert {m.id for m in memories} >= AX_DOC_MEMORIES
        assert all(len(s.content) >= 150 for s in skills), "sample guides must be real content"
    # second start: opened, not re-seeded
    with open_workspace(None) as ws:
        assert raw(ws).skills.count() == len(skills)
        assert len(raw(ws).skills.history("release-checklist")) == 1


def test_init_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "w.axmem"
    init_workspace(path).close()
    before = path.read_bytes()
    with pytest.raises(WorkspaceError, match="already exists"):
        init_workspace(path, sample=True)
    assert path.read_bytes() == before


def test_init_leaves_no_temporary_files(tmp_path: Path) -> None:
    init_workspace(tmp_path / "w.axmem", sample=True).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.axmem"]
