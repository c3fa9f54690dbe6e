"""An app's recording (format version 1, with `params`): `verify` checks the params against
the file's other records of the same facts and says exactly what it does not cover, rather
than calling a file recorded today "recorded before issue #29" with "no params"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.services import sessions
from tests.recorder.example_app.triage_agent import SESSION as PY_SESSION

REPO = Path(__file__).resolve().parents[2]
TS_SESSION = REPO / "recorders" / "ax-ts" / "example" / "sessions" / "triage.axsession.json"

Edit = Callable[[dict[str, Any]], None]


def _set_model(doc: dict[str, Any]) -> None:
    doc["exchanges"][0]["params"]["model"] = "gpt-evil"


def _set_provider(doc: dict[str, Any]) -> None:
    doc["provider"]["model"] = "gpt-evil"


def _set_temperature(doc: dict[str, Any]) -> None:
    doc["exchanges"][0]["params"]["temperature"] = 1.5


def _set_stream(doc: dict[str, Any]) -> None:
    doc["exchanges"][0]["params"]["stream"] = not doc["exchanges"][0]["params"]["stream"]


@pytest.mark.parametrize(
    ("path", "edit", "where"),
    [
        (PY_SESSION, _set_model, "exchanges[0].params.model"),
        (PY_SESSION, _set_provider, "exchanges[0].params.model"),
        (TS_SESSION, _set_model, "exchanges[0].params.model"),
        (TS_SESSION, _set_temperature, "exchanges[0].params.temperature"),
        (TS_SESSION, _set_stream, "exchanges[0].params.stream"),
    ],
    ids=["py-params-model", "py-provider-model", "ts-params-model", "ts-temperature", "ts-stream"],
)
def test_an_edited_param_of_an_app_recording_is_found(
    path: Path, edit: Edit, where: str, tmp_path: Path
) -> None:
    """On the old code every one of these verified."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    edit(doc)
    changed = tmp_path / "t.axsession.json"
    changed.write_text(json.dumps(doc), encoding="utf-8")
    report = sessions.verify(sessions.read_session_file(changed))
    assert not report.ok
    assert where in [d.where for d in report.differences]


@pytest.mark.parametrize("path", [TS_SESSION, PY_SESSION], ids=["typescript", "python"])
def test_verify_says_what_an_app_recording_covers(path: Path) -> None:
    report = sessions.verify(sessions.read_session_file(path))
    assert report.ok, report.render()
    text = report.render()
    assert "recorded before issue #29" not in text and "record no params" not in text
    assert "recorded by your app in format version 1" in text
    assert "params: each call's model is the provider's" in text
