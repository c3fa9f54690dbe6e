"""Record the shipped sample session: the sample agent over the sample catalog, answered
by the scripted model in process (no network, no key).

    python -m axmem_gui.engine.sample_session [-o OUT.axsession.json]
    python -m axmem_gui.engine.sample_session --persona b \
        -o axmem_gui/sample/session-ops-assistant-b.axsession.json

Two forwards, so the context map is updated twice (the second update grades and rewrites
an item the first one added). The file replays identically offline with the same axllm.
"""

from __future__ import annotations

import argparse
import json
from importlib import resources
from pathlib import Path
from typing import Any

from axmem_gui.core.formats import catalog_from_json_value
from axmem_gui.core.session.agent_config import agent_config_from_json, select_catalog
from axmem_gui.core.session.format import session_to_json_text
from axmem_gui.core.session.model import Origin, Session
from axmem_gui.engine.providers import (
    SCRIPTED_BASE_URL,
    ProviderSettings,
    make_client,
    request_headers,
)
from axmem_gui.engine.recorder import RunRequest, record_session
from axmem_gui.engine.scripted_model import ScriptedTransport
from axmem_gui.engine.search import default_backend

SAMPLE_AGENT = "ops-assistant"
SAMPLE_SESSION_ID = "sample-ops-assistant"
SAMPLE_FILE = f"session-{SAMPLE_AGENT}.axsession.json"
#: The second sample session: the same requests answered by the other scripted persona,
#: so Compare has two runs to set side by side from the first start.
SAMPLE_B_SESSION_ID = "sample-ops-assistant-b"
SAMPLE_B_FILE = f"session-{SAMPLE_AGENT}-b.axsession.json"
#: The scripted model's name per persona (a name ending in "-b" picks persona B).
SCRIPTED_MODELS = {"a": "scripted-a", "b": "scripted-b"}
SAMPLE_INPUTS = (
    {"userRequest": "How do I ship a new release of the payments SDK?"},
    {"userRequest": "Checkout is down for EU customers. What do I do first, and who do I page?"},
)


def _sample_json(name: str) -> Any:
    resource = resources.files("axmem_gui") / "sample" / name
    return json.loads(resource.read_text(encoding="utf-8"))


def record_sample_session(persona: str = "a") -> Session:
    """The sample run answered by scripted persona `persona` ("a" or "b")."""
    catalog = catalog_from_json_value(_sample_json("catalog.json"), "sample/catalog.json")
    configs = [agent_config_from_json(a, "sample/agents.json") for a in _sample_json("agents.json")]
    config = next(c for c in configs if c.name == SAMPLE_AGENT)
    model = SCRIPTED_MODELS[persona]
    settings = ProviderSettings("openai-compatible", model, base_url=SCRIPTED_BASE_URL)
    attempts: list[dict[str, Any]] = []
    client = make_client(
        settings, None, transport=ScriptedTransport(), on_http_attempt=attempts.append
    )
    provider = settings.session_record(
        {"kind": "placeholder"},
        dict(request_headers(client)),
        extra={"note": "scripted model answering in process (axmem_gui.engine.scripted_model)"},
    )
    request = RunRequest(
        config=config,
        catalog=select_catalog(catalog, config),
        inputs=SAMPLE_INPUTS,
        name=(
            "Sample: ops assistant, two requests (scripted model)"
            if persona == "a"
            else "Sample: the same requests, scripted model B (compare with the first)"
        ),
        origin=Origin(kind="sample", extra={"generator": "axmem_gui.engine.sample_session"}),
    )
    return record_session(
        request,
        client,
        provider,
        backend=default_backend(),
        http_attempts=attempts,
        session_id=SAMPLE_SESSION_ID if persona == "a" else SAMPLE_B_SESSION_ID,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, default=Path("axmem_gui/sample") / SAMPLE_FILE)
    parser.add_argument(
        "--persona",
        choices=("a", "b"),
        default="a",
        help=f"scripted persona: a ({SAMPLE_FILE}) or b ({SAMPLE_B_FILE})",
    )
    args = parser.parse_args(argv)
    session = record_sample_session(args.persona)
    args.output.write_text(session_to_json_text(session), encoding="utf-8")
    print(f"wrote {args.output}: {len(session.exchanges)} model calls, status {session.status}")
    return 0 if session.complete else 1


if __name__ == "__main__":
    raise SystemExit(main())
