"""`axmem render|search|simulate --ax-version` with both runtimes' profiles: the TypeScript
package's (ax-24.0.21) and axllm's (axllm-25.4.6, what the studio's own runs send)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.cli.main import main

# The catalog: with these skills added to the sample, the executor prompt that
# reached the server (axllm) began `2fa-reset, Deploy-Freeze, Zebra-runbook, a-b, aB, a_b`.
SKILLS = ["Deploy-Freeze", "Zebra-runbook", "2fa-reset", "a-b", "aB", "a_b"]
CATALOG = {
    "skills": [{"id": i, "name": f"Skill {i}", "content": "freeze deploy"} for i in SKILLS]
    + [{"id": " padded ", "name": "  Padded  ", "content": "x"},
       {"id": "nameless", "name": " ", "content": "dropped by axllm"}],
    "memories": [{"id": "mem-b", "content": "deploy window"},
                 {"id": "Mem-A", "content": "freeze owner"}],
}  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


@pytest.fixture
def catalog(tmp_path: Path) -> str:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(CATALOG), encoding="utf-8")
    return str(path)


def _ids(index: str) -> list[str]:
    return [line.split("`")[1] for line in index.splitlines() if line.startswith("- `")]


def test_render_index_in_each_runtimes_order(
    capsys: pytest.CaptureFixture[str], catalog: str
) -> None:
    ts = _run(capsys, "render", "index", "--catalog", catalog, "--index-only")
    assert _ids(ts) == [" padded ", "2fa-reset", "a_b", "a-b", "aB", "Deploy-Freeze",
                        "nameless", "Zebra-runbook"]  # fmt: skip
    axllm = _run(
        capsys, "render", "index", "--catalog", catalog, "--index-only",
        "--ax-version", "axllm-25.4.6",
    )  # fmt: skip
    assert _ids(axllm) == ["2fa-reset", "Deploy-Freeze", "Zebra-runbook", "a-b", "aB", "a_b",
                           "padded"]  # fmt: skip
    assert "- `padded` — Padded\n" in axllm + "\n"  # trimmed id and name, one line per id
    # the default and the explicit TypeScript profile are the same
    same = _run(capsys, "render", "index", "--catalog", catalog, "--index-only",
                "--ax-version", "ax-24.0.21")  # fmt: skip
    assert same == ts


def test_render_memories_and_hints_follow_the_profile(
    capsys: pytest.CaptureFixture[str], catalog: str
) -> None:
    ts = _run(capsys, "render", "memories", "--catalog", catalog)
    axllm = _run(capsys, "render", "memories", "--catalog", catalog, "--ax-version",
                 "axllm-25.4.6")  # fmt: skip
    assert ts.index("`Mem-A`") < ts.index("`mem-b`")
    assert axllm.index("`Mem-A`") < axllm.index("`mem-b`")  # "M" < "m" by code point too
    hints = _run(capsys, "render", "hints", "--catalog", catalog, "--task", "freeze deploy",
                 "--ranking", '{"marginRatio": 0, "topK": 3}',
                 "--ax-version", "axllm-25.4.6")  # fmt: skip
    # the id matches too; the rest tie: axllm breaks ties by code point (upper case
    # first), Ax with localeCompare
    assert _ids(hints) == ["Deploy-Freeze", "2fa-reset", "Zebra-runbook", "Mem-A", "mem-b"]
    ts = _run(capsys, "render", "hints", "--catalog", catalog, "--task", "freeze deploy",
              "--ranking", '{"marginRatio": 0, "topK": 3}')  # fmt: skip
    assert _ids(ts) == ["Deploy-Freeze", "2fa-reset", "a_b", "Mem-A", "mem-b"]


def test_axllm_search_and_what_it_refuses(
    capsys: pytest.CaptureFixture[str], catalog: str
) -> None:
    out = _run(capsys, "search", "skills", "freeze", "--catalog", catalog,
               "--ax-version", "axllm-25.4.6", "--json")  # fmt: skip
    # the id matches too; the rest tie, and axllm breaks ties by code point
    assert json.loads(out)["resultIds"] == ["Deploy-Freeze", "2fa-reset"]
    assert main(["search", "skills", "x", "--catalog", catalog, "--ax-version",
                 "axllm-25.4.6", "--explain", "aB"]) == 2  # fmt: skip
    assert "explains the Ax search" in capsys.readouterr().err
    assert main(["render", "index", "--catalog", catalog, "--ax-version", "axllm-9"]) == 2
    err = capsys.readouterr().err
    assert "ax-24.0.21, axllm-25.4.6" in err
