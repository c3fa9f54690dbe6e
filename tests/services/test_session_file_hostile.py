"""A session file's id, encoding and keys, as a stranger may write them: an id with a path
or a NUL in it, a byte order mark, a key named twice. Each went through or failed with
Python's own words before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.services import sessions
from tests.helpers.session_docs import sample_session_json


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_an_export_name_is_safe_whatever_the_id(tmp_path: Path) -> None:
    doc = sample_session_json()
    for hostile, stem in [
        ("../../etc/passwd", "session-____etc_passwd"),
        ("a/b\\c:d*e", "session-a_b_c_d_e"),
        ("..", "session-_"),
        ("ünïcode id", "session-_n_code_id"),
    ]:
        doc["id"] = hostile
        session = sessions.read_session_file(_write(tmp_path / "s.json", json.dumps(doc)))
        assert session.id == hostile  # the id itself is kept: it is the workspace key
        name = sessions.default_file_name(session)
        assert name == f"{stem}.axsession.json"
        assert "/" not in name and "\\" not in name and ".." not in name
    doc["id"] = "x" * 300
    session = sessions.read_session_file(_write(tmp_path / "s.json", json.dumps(doc)))
    assert len(sessions.default_file_name(session)) < 120


@pytest.mark.parametrize("bad_id", ["a\x00b", "line\nbreak", "esc\x1b[31m", "del\x7f"])
def test_an_id_with_a_control_character_is_refused(tmp_path: Path, bad_id: str) -> None:
    doc = sample_session_json()
    doc["id"] = bad_id
    with pytest.raises(InputError) as refused:
        sessions.read_session_file(_write(tmp_path / "s.json", json.dumps(doc)))
    message = str(refused.value)
    assert "field 'id' must not contain control characters" in message
    assert message.isprintable()  # shown escaped, never raw


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    doc = sample_session_json()
    path = tmp_path / "bom.axsession.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc).encode("utf-8"))
    session = sessions.read_session_file(path)  # said "Unexpected UTF-8 BOM (decode ...)"
    assert session.id == doc["id"]
    assert sessions.verify(session).ok


def test_a_key_named_twice_is_refused_naming_it(tmp_path: Path) -> None:
    text = json.dumps(sample_session_json())
    twice = text.replace('"status": "complete"', '"status": "complete", "status": "incomplete"', 1)
    assert twice != text
    with pytest.raises(InputError) as refused:
        sessions.read_session_file(_write(tmp_path / "dup.axsession.json", twice))
    message = str(refused.value)
    assert "dup.axsession.json: not a session file: the key 'status' appears twice" in message
    # Deep inside the file too (it was last-wins, silently).
    doc = sample_session_json()
    inner = json.dumps(doc["exchanges"][0]["response"])
    edited = text.replace(inner, inner[:-1] + ', "remote_id": "other"}', 1)
    assert edited != text
    with pytest.raises(InputError, match="the key 'remote_id' appears twice"):
        sessions.read_session_file(_write(tmp_path / "dup2.axsession.json", edited))
