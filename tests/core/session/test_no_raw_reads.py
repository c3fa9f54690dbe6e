"""Below the edges, nothing reads a session or agent document as a dict.

The session and agent documents are parsed once where they enter (core.session.format,
core.session.agent_config) into typed records; axllm's own JSON (requests, responses,
traces, map states) is read by core.session.payloads only, and the providers' own (the
settings sent and the raw replies a version 2 file keeps) by core.session.wire_payloads.
Every other module of the session and agent code reads attributes, the Python recorder for
the apps' own agents included (its edges are the app's values, read in recorder/wiring.py,
and axllm's request, in recorder/client.py, as engine/clients.py reads it for the studio's
runs). A small AST scan of those modules keeps it so, looking for what reading a JSON object
by key name looks like, whatever the variable is called:

* `x.get("key", ...)` and `getattr(x, "get")`,
* `x["key"]` read (a JSON object's field by name),
* `x.get(k)` / `x[k]` where `k` runs over a literal list of key names,
* `"key" in x` for a key-like name (is the field there?).

Lookups in the code's own maps by a variable (`rows.get(session_id)`, a repository's
`get(name)`) are not document reads and are not flagged.

It also pins what the Sessions UI may import: no engine, no store, and no workspace it
opens itself (its jobs get the sessions service for a job).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3] / "axmem_gui"

#: The edges, where documents enter and are written: the only readers of their JSON.
EDGES = {
    "core/session/format.py",
    "core/session/format_parts.py",
    "core/session/payloads.py",
    "core/session/wire_payloads.py",
    "core/session/agent_config.py",
}
SCANNED = sorted(
    {
        *(str(p.relative_to(ROOT)) for p in (ROOT / "core" / "session").glob("*.py")),
        *(str(p.relative_to(ROOT)) for p in (ROOT / "ui" / "sessions").glob("*.py")),
        "engine/replay.py",
        "engine/recorder.py",
        "recorder/recording.py",
        "recorder/document.py",
        "recorder/replaying.py",
        "recorder/pytest_plugin.py",
        "services/sessions.py",
        "services/session_store.py",
        "services/agents.py",
        "services/analytics.py",
        "services/contextmaps.py",
        "cli/cmd_sessions.py",
        "cli/cmd_agents.py",
    }
    - EDGES
)
_KEY_LIKE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _literal_keys(node: ast.AST) -> bool:
    return isinstance(node, ast.Tuple | ast.List | ast.Set) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    )


def raw_reads(source: str, name: str) -> list[str]:
    """Where `source` reads a JSON object by key name (see the module docstring)."""
    tree = ast.parse(source, name)
    key_names = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.For | ast.comprehension) and _literal_keys(node.iter)
        for target in ast.walk(node.target)
        if isinstance(target, ast.Name)
    }

    def keyish(arg: ast.AST) -> bool:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return True
        return isinstance(arg, ast.Name) and arg.id in key_names

    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Call):
            fn = node.func
            is_get = isinstance(fn, ast.Attribute) and fn.attr == "get" and node.args
            if is_get and keyish(node.args[0]):
                found.append((node.lineno, f"{where}: .get({ast.unparse(node.args[0])})"))
            if isinstance(fn, ast.Name) and fn.id == "getattr" and len(node.args) >= 2:
                arg = node.args[1]
                if isinstance(arg, ast.Constant) and arg.value == "get":
                    found.append((node.lineno, f"{where}: getattr(..., 'get')"))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if keyish(node.slice):
                found.append((node.lineno, f"{where}: [{ast.unparse(node.slice)}]"))
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant):
            key = node.left.value
            membership = any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            if membership and isinstance(key, str) and _KEY_LIKE.match(key):
                found.append((node.lineno, f"{where}: {key!r} in ..."))
    return [text for _line, text in sorted(found)]


def test_the_scan_sees_what_a_document_read_looks_like() -> None:
    # Each shape is caught whatever the names are (a rename does not hide one).
    sample = (
        "def f(doc, anything):\n"
        "    a = doc.get('forwards')\n"
        "    b = anything['exchanges']\n"
        "    for key in ('turns', 'searches'):\n"
        "        c = anything.get(key)\n"
        "        d = anything[key]\n"
        "    e = 'usage' in anything\n"
        "    g = getattr(anything, 'get')('x')\n"
        "    ok = rows.get(session_id), table[index], 'a phrase with spaces' in text\n"
        "    anything['written'] = 1\n"
    )
    found = raw_reads(sample, "x.py")
    assert [f.split(": ", 1)[1] for f in found] == [
        ".get('forwards')",
        "['exchanges']",
        ".get(key)",
        "[key]",
        "'usage' in ...",
        "getattr(..., 'get')",
    ], found


@pytest.mark.parametrize("module", SCANNED)
def test_no_session_or_agent_document_is_read_as_a_dict(module: str) -> None:
    path = ROOT / module
    assert path.is_file(), module
    assert raw_reads(path.read_text("utf-8"), module) == []


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"), str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


@pytest.mark.parametrize("path", sorted((ROOT / "ui" / "sessions").glob("*.py")), ids=str)
def test_the_sessions_ui_goes_through_services(path: Path) -> None:
    """No engine and no store in the Sessions UI (their types included), and no
    workspace opened by it or its jobs: they get a service or plain data."""
    imported = _imports(path)
    leaks = sorted(
        m
        for m in imported
        if m.startswith(("axmem_gui.engine", "axmem_gui.store", "axllm", "sqlite"))
        or m.endswith((".open_workspace", ".Workspace"))
    )
    assert leaks == [], f"{path.name} imports {leaks}"
    source = path.read_text("utf-8")
    assert "open_workspace(" not in source and "Workspace.open(" not in source
