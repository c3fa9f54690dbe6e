"""The MIME types for workspaces and session files: the magic rule matches real workspace
files (and only those), and the shared MIME database really classifies files with it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from axmem_gui.core.workspace import WORKSPACE_SUFFIX
from axmem_gui.services.workspace import init_workspace
from axmem_gui.store.schema import APPLICATION_ID
from tests.helpers.present import present
from tests.packaging.conftest import MIME_FILE, SESSION_MIME, WORKSPACE_MIME, external_tool

NS = "{http://www.freedesktop.org/standards/shared-mime-info}"


def mime_type(name: str) -> ET.Element:
    for element in ET.parse(MIME_FILE).getroot().iter(f"{NS}mime-type"):
        if element.get("type") == name:
            return element
    raise AssertionError(f"{MIME_FILE.name} does not declare {name}")


def globs(name: str) -> list[str]:
    return [g.get("pattern", "") for g in mime_type(name).iter(f"{NS}glob")]


def match_rule(match: ET.Element, data: bytes) -> bool:
    """Evaluate one shared-mime-info <match> (the kinds this file uses) and its children:
    a match holds when it holds here and, if it has children, one of them holds too."""
    offset = int(match.get("offset", "0"))
    kind, value = match.get("type"), match.get("value", "")
    if kind == "string":
        expected = value.encode("ascii")
    elif kind == "big32":
        expected = int(value, 0).to_bytes(4, "big")
    else:
        raise AssertionError(f"match type {kind!r} not covered by this test")
    if data[offset : offset + len(expected)] != expected:
        return False
    children = match.findall(f"{NS}match")
    return not children or any(match_rule(child, data) for child in children)


def magic_matches(name: str, data: bytes) -> bool:
    magic = mime_type(name).find(f"{NS}magic")
    assert magic is not None
    return any(match_rule(m, data) for m in magic.findall(f"{NS}match"))


def new_workspace(path: Path) -> Path:
    init_workspace(path).close()
    return path


def test_magic_checks_the_sqlite_header_and_our_application_id() -> None:
    magic = mime_type(WORKSPACE_MIME).find(f"{NS}magic")
    assert magic is not None and int(magic.get("priority", "50")) > 50  # beats plain SQLite
    (outer,) = magic.findall(f"{NS}match")
    (inner,) = outer.findall(f"{NS}match")
    assert (outer.get("offset"), outer.get("value")) == ("0", "SQLite format 3")
    assert inner.get("offset") == "68" and inner.get("type") == "big32"
    assert int(inner.get("value", ""), 0) == APPLICATION_ID


def test_magic_matches_a_real_workspace_and_not_other_sqlite_files(tmp_path: Path) -> None:
    workspace = new_workspace(tmp_path / f"w{WORKSPACE_SUFFIX}")
    plain = tmp_path / "plain.sqlite"
    with sqlite3.connect(plain) as conn:
        conn.execute("CREATE TABLE t (x)")
    other_app = tmp_path / "other.sqlite"
    with sqlite3.connect(other_app) as conn:
        conn.execute("PRAGMA application_id = 1234")
        conn.execute("CREATE TABLE t (x)")
    assert magic_matches(WORKSPACE_MIME, workspace.read_bytes())
    assert not magic_matches(WORKSPACE_MIME, plain.read_bytes())
    assert not magic_matches(WORKSPACE_MIME, other_app.read_bytes())


def test_globs_are_the_suffixes_the_app_writes() -> None:
    assert globs(WORKSPACE_MIME) == [f"*{WORKSPACE_SUFFIX}"]
    assert globs(SESSION_MIME) == ["*.axsession.json"]
    assert present(mime_type(WORKSPACE_MIME).find(f"{NS}sub-class-of")).get("type") == (
        "application/vnd.sqlite3"
    )
    assert present(mime_type(SESSION_MIME).find(f"{NS}sub-class-of")).get("type") == (
        "application/json"
    )


DETECT = """
import json, sys
from PySide6.QtCore import QMimeDatabase
from tests.helpers.present import present
db = QMimeDatabase()
by_name = {p: db.mimeTypeForFile(p).name() for p in sys.argv[1:]}
by_content = {
    p: db.mimeTypeForFile(p, QMimeDatabase.MatchMode.MatchContent).name() for p in sys.argv[1:]
}
print(json.dumps({"name": by_name, "content": by_content}))
"""


def detect(files: list[Path], data_home: Path) -> dict[str, dict[str, str]]:
    """What Qt's MIME database (the shared-mime-info one on Linux) says about `files`."""
    env = {**os.environ, "XDG_DATA_HOME": str(data_home), "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(
        [sys.executable, "-c", DETECT, *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    answer: dict[str, dict[str, str]] = json.loads(run.stdout)
    return answer


def test_shared_mime_database_classifies_workspaces_and_sessions(tmp_path: Path) -> None:
    update = external_tool("update-mime-database", "shared-mime-info")
    workspace = new_workspace(tmp_path / f"notes{WORKSPACE_SUFFIX}")
    renamed = tmp_path / "renamed.db"
    renamed.write_bytes(workspace.read_bytes())
    session = tmp_path / "run-1.axsession.json"
    session.write_text('{"format": "axsession"}\n', encoding="utf-8")
    plain = tmp_path / "data.json"
    plain.write_text("{}\n", encoding="utf-8")
    files = [workspace, renamed, session, plain]

    without = detect(files, tmp_path / "empty-data-home")
    assert without["content"][str(renamed)] != WORKSPACE_MIME

    data_home = tmp_path / "share"
    (data_home / "mime" / "packages").mkdir(parents=True)
    (data_home / "mime" / "packages" / MIME_FILE.name).write_bytes(MIME_FILE.read_bytes())
    subprocess.run([update, str(data_home / "mime")], check=True, capture_output=True)
    found = detect(files, data_home)
    assert found["name"][str(workspace)] == WORKSPACE_MIME
    assert found["content"][str(renamed)] == WORKSPACE_MIME  # by magic alone
    assert found["name"][str(session)] == SESSION_MIME
    assert found["name"][str(plain)] == "application/json"
