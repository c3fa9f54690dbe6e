"""The one owner of each aggregate: `SessionService` for stored sessions, `AgentService`
for agent configs. What the GUI's commands and the CLI both call, on a real workspace."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.core.providers import ProviderSettings
from axmem_gui.core.session.agent_config import agent_config_from_json
from axmem_gui.services.agents import AgentService, StoredAgent
from axmem_gui.services.sessions import SessionService, read_session_file
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store import Workspace
from tests.helpers.store import raw

SAMPLE = Path(__file__).resolve().parents[2] / "axmem_gui" / "sample"
SAMPLE_FILE = SAMPLE / "session-ops-assistant.axsession.json"


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = raw(init_workspace(tmp_path / "w.axmem"))
    yield workspace
    workspace.close()


def test_a_stored_session_is_exported_as_the_file_it_was_imported_from(
    ws: Workspace, tmp_path: Path
) -> None:
    """The store keeps a session's model calls as rows of their own; the document came
    back with its keys in another order (the exchanges last), so an export differed from
    the file that was imported."""
    changes: list[str] = []
    service = SessionService(ws, lambda: changes.append("sessions"))
    result = service.import_file(SAMPLE_FILE)
    assert result.stored and changes == ["sessions"]
    out = tmp_path / "out.axsession.json"
    service.export(result.id, out)
    assert out.read_bytes() == SAMPLE_FILE.read_bytes()


def test_restoring_deleted_sessions_never_replaces_another(ws: Workspace) -> None:
    """Undo of a delete wrote the sessions back over whatever had their ids meanwhile."""
    service = SessionService(ws)
    session = read_session_file(SAMPLE_FILE)
    service.save(session)
    service.delete([session])
    assert service.find(session.id) is None
    other = dataclasses.replace(session, name="someone else's run")
    service.save(other)  # e.g. imported by the CLI meanwhile
    with pytest.raises(InputError, match="another session was stored under its id"):
        service.restore([session])
    assert service.get(session.id).name == "someone else's run"
    service.delete([other])
    service.restore([session])  # the id is free again: restored as it was
    assert service.get(session.id) == session


def test_heads_leave_out_what_the_parser_refuses(ws: Workspace) -> None:
    service = SessionService(ws)
    service.save(read_session_file(SAMPLE_FILE))
    ws.sessions.save({"id": "hand-written", "name": "not a session"})
    heads = list(service.heads())
    assert [h.id for h in heads] == ["sample-ops-assistant"]
    assert heads[0].exchanges == () and heads[0].forwards  # no model calls read
    with pytest.raises(InputError, match="session hand-written"):
        service.get("hand-written")


def test_the_last_provider_is_remembered_without_a_key(ws: Workspace) -> None:
    service = SessionService(ws)
    assert service.last_provider() is None
    settings = ProviderSettings("openai", "gpt-x", api_key_env="MY_KEY")
    service.remember_provider(settings)
    assert service.last_provider() == settings


CONFIG = agent_config_from_json(
    {"name": "helper", "signature": "q:string -> a:string", "instruction": "Be brief."}, "test"
)


def test_agent_writes_check_the_revision_and_say_so(ws: Workspace) -> None:
    changes: list[str] = []
    agents = AgentService(ws, lambda: changes.append("agents"))
    added = agents.add(CONFIG)
    assert added.revision == 1 and added.config == CONFIG and changes == ["agents"]
    edited = agents.edit("helper", dataclasses.replace(CONFIG, instruction="Be long."), 1)
    assert edited.revision == 2
    with pytest.raises(InputError, match="changed since revision 1"):
        agents.edit("helper", CONFIG, 1)
    with pytest.raises(InputError, match="not removed"):
        agents.remove("helper", 1)
    assert agents.get("helper").config == dataclasses.replace(CONFIG, instruction="Be long.")
    agents.remove("helper", 2)
    assert agents.names() == [] and len(changes) == 3


def test_an_undo_writes_back_a_config_the_parser_refuses_as_it_was(ws: Workspace) -> None:
    """A stored config this axmem cannot read (by hand, another version) is listed with
    its problem, and deleting it then undoing puts it back unchanged."""
    odd = {"name": "odd", "signature": "q:string -> a:string", "maxActorSteps": 0}
    ws.agents.save("odd", odd)
    agents = AgentService(ws)
    found = agents.get("odd")
    assert found.config is None and "maxActorSteps" in found.problem
    with pytest.raises(InputError, match="maxActorSteps"):
        agents.config("odd")
    agents.replace(("odd", found.revision), None)  # the delete
    assert agents.find("odd") is None
    agents.replace(None, found)  # its undo
    assert ws.agents.get("odd") == odd


def test_the_show_document_reads_back_as_the_config(ws: Workspace) -> None:
    from axmem_gui.services.agents import config_from_text

    agents = AgentService(ws)
    shown = agents.add(CONFIG).show_json()
    assert config_from_text(json.dumps(shown), "stdin") == CONFIG
    assert isinstance(agents.get("helper"), StoredAgent)
