"""`--provider local` wherever a provider is chosen (issue #29): run, rerun,
test-connection and eval reuse a bundled model already serving (`axmem local-model serve`
records where), else start it, else say what to install. The real model is the optional
extra (`make test-local` runs against it); here a fake server stands in for one serving it,
and the extra is missing. On the old code `axmem run --provider local` answered "unknown
provider 'local'" and eval started a second server beside a running one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.cli.main import main
from axmem_gui.engine import local_model
from axmem_gui.services import local_model as local
from axmem_gui.services.local_model import MODEL_NAME
from tests.engine.conftest import DOCUMENT
from tests.fakes.fake_openai_server import FakeOpenAIServer


@pytest.fixture(autouse=True)
def _no_bundled_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The extra is not installed, and nothing may start the real server."""
    monkeypatch.setattr(
        local_model,
        "local_model_status",
        lambda: local_model.LocalModelStatus(model_file=None, server=False),
    )

    def refuse(self: Any) -> Any:
        raise AssertionError("the bundled model's server must not be started")

    monkeypatch.setattr(local_model.LocalModelServer, "start", refuse)


@pytest.fixture
def serving(server: FakeOpenAIServer) -> FakeOpenAIServer:
    """A server answering as the bundled model does, recorded as `local-model serve`
    records itself."""
    server.state.models = [MODEL_NAME]
    registry = local.registry_path()
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_text(json.dumps({"base_url": server.base_url, "pid": 1}), encoding="utf-8")
    return server


def _run(workspace: Path, *extra: str) -> list[str]:
    return [
        "run", "--workspace", str(workspace), "--agent", "triage",
        "--input", "query=Which incident is the most severe?", "--input", f"document={DOCUMENT}",
        "--provider", "local", "-q", *extra,
    ]  # fmt: skip


def _says_what_to_do(err: str) -> None:
    assert "the bundled local model is not installed" in err
    assert 'pip install "axmem-gui[local]"' in err and "make local-model" in err
    assert "axmem local-model serve" in err


def test_run_without_the_extra_names_what_to_install(
    workspace_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.axsession.json"
    assert main(_run(workspace_path, "-o", str(out))) == 2
    err = capsys.readouterr().err
    _says_what_to_do(err)
    assert "unknown provider" not in err and not out.exists()


def test_run_rerun_and_test_connection_reuse_a_serving_bundled_model(
    serving: FakeOpenAIServer,
    workspace_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "s.axsession.json"
    assert main(_run(workspace_path, "-o", str(out))) == 0
    doc = json.loads(out.read_text("utf-8"))
    assert doc["provider"]["model"] == MODEL_NAME
    assert doc["provider"]["base_url"] == serving.base_url
    asked = [r for r in serving.requests if r.path.endswith("/chat/completions")]
    assert asked and all(r.body["model"] == MODEL_NAME for r in asked)

    again = tmp_path / "again.axsession.json"
    assert main(["rerun", str(out), "--provider", "local", "-q", "-o", str(again)]) == 0
    assert json.loads(again.read_text("utf-8"))["provider"]["base_url"] == serving.base_url

    capsys.readouterr()
    assert main(["test-connection", "--provider", "local", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["model"] == MODEL_NAME


def test_a_stale_record_is_not_reused(
    server: FakeOpenAIServer, workspace_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The record names a server that answers, but not as the bundled model.
    registry = local.registry_path()
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_text(json.dumps({"base_url": server.base_url}), encoding="utf-8")
    assert main(["test-connection", "--provider", "local"]) == 2
    _says_what_to_do(capsys.readouterr().err)
    registry.write_text("{not json", encoding="utf-8")
    assert local.running_server() is None


def test_eval_reuses_a_serving_bundled_model(
    serving: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from axmem_gui.services.workspace import init_workspace

    ws = init_workspace(tmp_path / "sample.axmem", sample=True)
    ws.close()
    args = ["eval", "run", "--workspace", str(tmp_path / "sample.axmem"), "--provider", "local"]
    assert main([*args, "--json", "--repeat", "1"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    assert report["provider"]["base_url"] == serving.base_url
    assert report["provider"]["model"] == MODEL_NAME


def test_serve_records_where_it_serves_and_removes_the_record(tmp_path: Path) -> None:
    class Serving:
        base_url = "http://127.0.0.1:9/v1"

    path = tmp_path / "local-model.json"
    local.register_server(Serving(), path)  # type: ignore[arg-type]
    assert json.loads(path.read_text("utf-8"))["base_url"] == Serving.base_url
    local.unregister_server(Serving(), path)  # type: ignore[arg-type]
    assert not path.exists()
