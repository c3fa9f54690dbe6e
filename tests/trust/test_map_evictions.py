"""Context maps in sessions: evictions (added-then-evicted included) in the update record,
the CLI (`contextmap show/diff SESSION --forward N`) and the GUI timeline."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QUndoStack

from axmem_gui.cli.main import main
from axmem_gui.services import contextmaps, sessions
from axmem_gui.services.workspace import init_workspace
from axmem_gui.ui.contextmap import ContextMapPage
from axmem_gui.ui.contextmap.timeline_model import COL_EVICTED, HEADERS
from axmem_gui.ui.controller import WorkspaceController
from tests.helpers.session_docs import reparse
from tests.helpers.store import raw
from tests.trust.conftest import record
from tests.trust.script_server import ScriptServer


@pytest.fixture(scope="module")
def evicting() -> Iterator[dict[str, Any]]:
    """Two forwards on a 1000-char map whose Cartographer ADDs long items: forward 1 adds
    ps-00002 and cu-00001 and evicts cu-00001 at once; forward 2 adds ps-00004 and
    cu-00003, evicting ps-00002 and (at once) cu-00003."""
    srv = ScriptServer().start()
    srv.state.long_map_items = True
    try:
        yield record(srv, max_chars=1000)
    finally:
        srv.stop()


def test_the_update_record_names_evictions_and_their_budget(evicting: dict[str, Any]) -> None:
    first, second = (f["context_map_update"] for f in evicting["forwards"])
    assert first["added"] == ["ps-00002"]
    assert first["evicted"] == ["cu-00001"] and first["added_evicted"] == ["cu-00001"]
    assert second["evicted"] == ["ps-00002", "cu-00003"]
    assert second["added_evicted"] == ["cu-00003"]
    assert first["budget"] == {"maxChars": 1000, "chars_after": 944}
    lines = contextmaps.describe_update(first)
    assert "Evicted to fit maxChars 1000 (the map is now 944 chars):" in lines
    assert "  cu-00001  (added by this update and evicted at once)" in lines
    assert sessions.replay(reparse(evicting)).identical


def _write(doc: dict[str, Any], tmp_path: Path) -> Path:
    path = tmp_path / "evicting.axsession.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_contextmap_diff_and_show_take_a_session_file(
    evicting: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(evicting, tmp_path)
    assert main(["contextmap", "diff", str(path), "--forward", "2"]) == 0
    out = capsys.readouterr().out
    assert "+ [ps-00004]" in out and "- [ps-00002]" in out
    assert "Evicted to fit maxChars 1000" in out
    assert "cu-00003  (added by this update and evicted at once)" in out

    assert main(["contextmap", "show", str(path), "--forward", "1", "--before", "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert before["steps"] == 0
    assert main(["contextmap", "show", str(path), "--forward", "1", "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["steps"] == 1

    assert main(["contextmap", "diff", str(path), "--json"]) == 0  # the last forward
    assert json.loads(capsys.readouterr().out)["update"]["evicted"] == ["ps-00002", "cu-00003"]

    assert main(["contextmap", "show", str(path), "--forward", "5"]) == 2
    assert "--forward 5 is out of range (the session has 2 forwards)" in capsys.readouterr().err


def test_the_timeline_shows_evictions_with_their_budget(
    qtbot: Any, evicting: dict[str, Any], tmp_path: Path
) -> None:
    ws = init_workspace(tmp_path / "maps.axmem")
    sessions.save_session(raw(ws), reparse(evicting))
    controller = WorkspaceController(ws)
    page = ContextMapPage(controller, QUndoStack())
    qtbot.addWidget(page)
    page.resize(1100, 700)
    page.show()
    try:
        page.select_agent("triage")
        model = page.timeline_model
        assert HEADERS[COL_EVICTED] == "Evicted"
        evicted = [str(model.index(r, COL_EVICTED).data()) for r in range(model.rowCount())]
        assert evicted == ["", "cu-00001 (new)", "ps-00002, cu-00003 (new)"]
        assert "Evicted to fit maxChars 1000" in str(model.index(2, 0).data(3))  # tooltip
        page.select_row(2)
        details = page.details.toPlainText()
        assert "ps-00002" in details and "cu-00003  (added by this update and evicted" in details
    finally:
        controller.close()
