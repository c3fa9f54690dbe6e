"""`axmem contextmap apply|diff|show`: outputs, shapes and exit codes, through `main()`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main

UPDATE = {
    "itemTags": {"ps-00001": "helpful", "dc-00002": "stale"},
    "operations": [
        {"type": "REPLACE", "item_id": "ps-00001", "content": "Records: one per line"},
        {"type": "ADD", "section": "reusable_results", "content": "INC-2 is the only SEV1"},
        {"type": "ADD", "section": "nowhere", "content": "dropped"},
    ],
}
MAP_TEXT = (
    "## DOMAIN CONSTANTS\n[dc-00002] SEV1 (worst) .. SEV3\n\n"
    "## PARSING SCHEMA\n[ps-00001] One incident per line\n"
)


def write(path: Path, value: Any) -> Path:
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["contextmap", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_apply_keeps_the_ts_snapshot_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = write(
        tmp_path / "s.json",
        {
            "version": 1,
            "text": MAP_TEXT,
            "scores": {},
            "steps": 1,
            "maxChars": 4000,
            "infiniteEvolve": True,
        },
    )
    update = write(tmp_path / "u.json", UPDATE)
    code, out, err = run(capsys, "apply", str(state), str(update))
    assert (code, err) == (0, "")
    new = json.loads(out)
    assert list(new) == ["version", "text", "scores", "steps", "maxChars", "infiniteEvolve"]
    assert new["steps"] == 2
    assert new["scores"] == {"ps-00001": 1, "dc-00002": -1}
    assert "[ps-00001] Records: one per line\n" in new["text"]
    assert "[rr-00003] INC-2 is the only SEV1\n" in new["text"]


def test_apply_keeps_the_axllm_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = write(
        tmp_path / "cm.json",
        {
            "text": MAP_TEXT,
            "steps": 0,
            "scores": {},
            "maxChars": 60,
            "infiniteEvolve": True,
            "evolveSteps": 0,
            "next_id": 3,
        },
    )
    code, out, _ = run(capsys, "apply", str(state), str(write(tmp_path / "u.json", UPDATE)))
    assert code == 0
    new = json.loads(out)
    assert list(new) == ["text", "steps", "scores", "maxChars", "infiniteEvolve", "evolveSteps"]
    assert "[dc-00002]" not in new["text"]  # stale, evicted first under the 60-char budget
    assert new["scores"]["dc-00002"] == -1


def test_apply_result_flag_and_markdown_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = write(tmp_path / "map.md", MAP_TEXT)
    code, out, _ = run(
        capsys, "apply", str(state), str(write(tmp_path / "u.json", UPDATE)), "--result"
    )
    assert code == 0
    result = json.loads(out)
    assert result["status"] == "updated"
    assert result["step"] == 1
    assert result["addedItemIds"] == ["rr-00003"]
    assert [op["type"] for op in result["operations"]] == ["REPLACE", "ADD"]
    assert result["operations"][0]["itemId"] == "ps-00001"
    assert result["dropped"][0]["index"] == 2
    assert result["state"]["version"] == 1  # a text map is written as a TS snapshot


def test_apply_to_a_frozen_map_reports_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frozen = {"version": 1, "text": MAP_TEXT, "steps": 2, "infiniteEvolve": False, "evolveSteps": 2}
    state = write(tmp_path / "s.json", frozen)
    code, out, _ = run(
        capsys, "apply", str(state), str(write(tmp_path / "u.json", UPDATE)), "--result"
    )
    result = json.loads(out)
    assert code == 0
    assert (result["status"], result["skipReason"], result["changed"]) == (
        "skipped",
        "evolve_steps",
        False,
    )
    assert result["state"]["text"] == MAP_TEXT and result["state"]["steps"] == 2


@pytest.mark.parametrize(
    ("state", "update", "message"),
    [
        (
            {"version": 1, "text": "x", "maxChars": -5},
            UPDATE,
            "s.json: field 'maxChars' must be a positive integer",
        ),
        ({"scores": {}}, UPDATE, "s.json: field 'text' is missing"),
        ("{not json", UPDATE, "s.json: not valid JSON (line 1, column 2"),
        ({"text": "x"}, [1, 2], "u.json: expected an update object"),
        ({"text": "x"}, {"text": "a map, not an update"}, "u.json: not a context-map update"),
        ({"text": "x"}, "", "u.json: not valid JSON"),
    ],
)
def test_bad_files_exit_2_naming_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], state: Any, update: Any, message: str
) -> None:
    s = write(tmp_path / "s.json", state)
    u = write(tmp_path / "u.json", update)
    code, out, err = run(capsys, "apply", str(s), str(u))
    assert code == 2
    assert out == ""
    assert err.startswith("axmem: error: ") and message in err
    assert str(tmp_path) in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "show", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json: context map file not found" in err


def test_diff_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write(tmp_path / "a.md", MAP_TEXT)
    code, out, _ = run(capsys, "apply", str(a), str(write(tmp_path / "u.json", UPDATE)))
    b = write(tmp_path / "b.json", out)
    code, out, _ = run(capsys, "diff", str(a), str(b))
    assert code == 0
    assert "steps: 0 -> 1\n" in out
    assert "+ [rr-00003] (reusable_results) INC-2 is the only SEV1\n" in out
    assert "* dc-00002: score - -> -1\n" in out
    code, out, _ = run(capsys, "diff", str(a), str(b), "--json")
    assert code == 0
    diff = json.loads(out)
    assert [r["id"] for r in diff["replaced"]] == ["ps-00001"]
    assert diff["steps"] == {"before": 0, "after": 1}


def test_show_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = write(
        tmp_path / "cm.json", {"text": MAP_TEXT, "scores": {"ps-00001": 2}, "maxChars": 80}
    )
    code, out, _ = run(capsys, "show", str(state))
    assert code == 0
    assert out.startswith(f"context map: {len(MAP_TEXT)}/80 chars (UTF-16), steps 0")
    assert "  [ps-00001] score 2: One incident per line\n" in out
    assert "  [dc-00002] score -: " in out  # unscored, written as `diff` writes it (was 0)
    assert "the next update evicts at least: dc-00002\n" in out
    code, out, _ = run(capsys, "show", str(state), "--json")
    summary = json.loads(out)
    assert summary["shape"] == "axllm"
    assert summary["evictionOrder"] == ["dc-00002", "ps-00001"]


def test_contextmap_without_action_prints_usage_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys)
    assert code == 2 and out == "" and "apply" in err
