"""Issue: fuzzed input. Every reader of outside data (importers of each format, the
session file loader, the context-map snapshot loader, the catalog JSON reader, the CLI)
either succeeds or fails with an AxmemError whose message names the file; never any other
exception, and nothing is written to the workspace on failure.

A few hundred examples per reader run in `make test`; thousands behind `-m slow`."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axmem_gui.core.errors import AxmemError
from axmem_gui.services.catalogs import read_catalog_file
from axmem_gui.services.contextmaps import read_snapshot_file
from axmem_gui.services.sessions import read_session_file
from axmem_gui.services.transfer import import_paths
from axmem_gui.services.workspace import open_workspace
from tests.helpers.store import raw

FAST = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
LONG = settings(
    max_examples=3000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=25,
)

KEYS = [
    "id",
    "name",
    "description",
    "content",
    "tags",
    "skillsCatalog",
    "memoriesCatalog",
    "skills",
    "memories",
    "format",
    "version",
    "exchanges",
    "text",
    "scores",
    "steps",
    "maxChars",
    "infiniteEvolve",
    "evolveSteps",
    "next_id",
]

# JSON that looks like our formats, with the right keys and wrong values.
shaped = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**6) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)
    ),
    max_leaves=30,
)

payloads = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    json_values.map(lambda v: json.dumps(v).encode()),
    shaped.map(lambda v: json.dumps(v).encode()),
)


def _check_reader(reader: Any, path: Path, data: bytes) -> None:
    path.write_bytes(data)
    try:
        reader(path)
    except AxmemError as exc:
        message = str(exc)
        assert message.strip(), "empty error message"
        assert "Traceback" not in message
        assert path.name in message, f"the message does not name the file: {message}"


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("catalog.json", read_catalog_file),
        ("run.axsession.json", read_session_file),
        ("snapshot.json", read_snapshot_file),
    ],
)
@FAST
@given(data=payloads)
def test_loaders_fail_cleanly(tmp_path: Path, name: str, reader: Any, data: bytes) -> None:
    _check_reader(reader, tmp_path / name, data)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("catalog.json", read_catalog_file),
        ("run.axsession.json", read_session_file),
        ("snapshot.json", read_snapshot_file),
    ],
)
@LONG
@given(data=payloads)
def test_loaders_fail_cleanly_long(tmp_path: Path, name: str, reader: Any, data: bytes) -> None:
    _check_reader(reader, tmp_path / name, data)


@pytest.fixture(scope="module")
def workspace_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from axmem_gui.services.workspace import init_workspace

    path = tmp_path_factory.mktemp("fuzz-ws") / "w.axmem"
    init_workspace(path, sample=True).close()
    return path


def _import_case(workspace_path: Path, folder: Path, name: str, data: bytes) -> None:
    source = folder / name
    if name == "SKILL.md":
        source = folder / "some-skill" / "SKILL.md"
        source.parent.mkdir(parents=True, exist_ok=True)
    source.write_bytes(data)
    target = source.parent if name == "SKILL.md" else source
    with open_workspace(workspace_path) as ws:
        before = (raw(ws).catalog(), raw(ws).revisions.count())
        try:
            plan, result = import_paths(ws, [target], "overwrite")
        except AxmemError as exc:
            assert str(exc).strip() and "Traceback" not in str(exc)
            result = None
            plan = None
        if plan is not None and not plan.ok:
            assert plan.errors and all(str(e).strip() for e in plan.errors)
        if result is None:
            assert (raw(ws).catalog(), raw(ws).revisions.count()) == before, "a failed import wrote"
        elif result is not None:
            from axmem_gui.services.transfer import undo_import

            undo_import(ws, result)  # keep the shared workspace as it was


@pytest.mark.parametrize("name", ["catalog.json", "memories.jsonl", "catalog.ts", "SKILL.md"])
@FAST
@given(data=payloads)
def test_importers_fail_cleanly_and_write_nothing(
    workspace_path: Path, tmp_path: Path, name: str, data: bytes
) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    _import_case(workspace_path, folder, name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["catalog.json", "memories.jsonl", "catalog.ts", "SKILL.md"])
@LONG
@given(data=payloads)
def test_importers_fail_cleanly_and_write_nothing_long(
    workspace_path: Path, tmp_path: Path, name: str, data: bytes
) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    _import_case(workspace_path, folder, name, data)


WORDS = [
    "init",
    "info",
    "render",
    "index",
    "search",
    "skills",
    "memories",
    "simulate",
    "lint",
    "import",
    "export",
    "suite",
    "run",
    "sessions",
    "list",
    "replay",
    "diff",
    "whatif",
    "contextmap",
    "apply",
    "show",
    "conformance",
    "--json",
    "--workspace",
    "--catalog",
    "--format",
    "--policy",
    "-o",
    "--ids",
    "--stage",
    "--runtime",
    "x",
]

argv_lists = st.lists(st.sampled_from(WORDS) | st.text(max_size=8), max_size=6)


def _check_cli(argv: list[str], tmp_path: Path, capsys: Any) -> None:
    # Relative paths in random arguments land in tmp_path, never in the repository.
    import os

    from axmem_gui.cli.main import main

    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors and --help/--version
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(old)
    assert code in (0, 1, 2), (argv, code)
    err = capsys.readouterr().err
    assert "Traceback" not in err


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=argv_lists)
def test_cli_arguments_never_crash(argv: list[str], tmp_path: Path, capsys: Any) -> None:
    _check_cli(argv, tmp_path, capsys)
