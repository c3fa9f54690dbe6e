"""An example axllm agent as an app writes it: one function tool (a team-directory lookup
over HTTP), a skills catalog, a memories catalog and a context map carried from one
question to the next. The Python twin of recorders/ax-ts/example/triage-agent.mjs.

Its session is recorded by `record()` (against the tests' scripted OpenAI-compatible
server) and replayed offline by test_replay_in_app_tests.py, the way an app's own tests
would use `axmem_gui.recorder`.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import axllm
from axllm import AxQuickJsCodeRuntime

from axmem_gui.recorder import SessionRecorder

SIGNATURE = "question:string -> answer:string"
INSTRUCTION = "Look owners up with the directory tool before answering; name the on-call person."
QUESTIONS = ("Who owns the checkout incident?", "Who is on call for checkout right now?")
FORWARD_OPTIONS = {"max_actor_steps": 6}
SESSION = Path(__file__).parent / "sessions" / "triage.axsession.json"

SKILLS = [
    {
        "id": "incident-triage",
        "name": "Incident triage",
        "description": "How to read incident notes, rank severity and find who owns a service",
        "content": "# Incident triage\n- SEV1 is the most severe.\n"
        "- Always name the owning team and the on-call person.",
    },
    {
        "id": "release-guide",
        "name": "Release guide",
        "description": "Shipping a release: tag, build, announce",
        "content": "# Releases\nTag the commit, build, announce in #releases.",
    },
]
MEMORIES = [
    {"id": "mem-checkout-owner", "content": "The checkout service owner is team-payments."},
    {"id": "mem-user-pref", "content": "The user prefers one-sentence answers."},
    {"id": "mem-search-owner", "content": "The search service owner is team-discovery."},
]


def lookup_owner_tool(directory_url: str) -> dict[str, Any]:
    """The function tool: asks the team directory (an HTTP service) who owns a service."""

    def handler(args: dict[str, Any]) -> Any:
        service = urllib.parse.quote(str(args.get("service", "")))
        with urllib.request.urlopen(f"{directory_url}/owners/{service}", timeout=10) as reply:
            return json.loads(reply.read())

    return {
        "name": "lookupOwner",
        "description": "Find the team that owns a service and who is on call",
        "parameters": {
            "type": "object",
            "properties": {"service": {"type": "string", "description": "the service name"}},
            "required": ["service"],
        },
        "handler": handler,
    }


def triage_options(directory_url: str, instruction: str = INSTRUCTION) -> dict[str, Any]:
    """The agent's options, the same for recording and for replaying in a test."""
    usage: list[Any] = []  # the app's own telemetry of used memories
    return {
        "functions": [lookup_owner_tool(directory_url)],
        "skillsCatalog": SKILLS,
        "memoriesCatalog": MEMORIES,
        "contextMap": {"maxChars": 1600},
        "instruction": instruction,
        "runtime": AxQuickJsCodeRuntime(),  # type: ignore[no-untyped-call]
        "on_used_memories": usage.extend,
    }


def record(
    file: Path, base_url: str, directory_url: str, *, session_id: str = "py-triage-example"
) -> tuple[SessionRecorder, list[Any]]:
    """Record the example answering QUESTIONS (the client is the app's own axllm client)."""
    rec = SessionRecorder(file, name="triage example (python)", session_id=session_id)
    client = rec.wrap_client(
        axllm.ai(
            "openai-compatible",
            model="scripted-a",
            base_url=base_url,
            api_key="sk-local-placeholder-key",
        )
    )
    triage = rec.agent(SIGNATURE, triage_options(directory_url), name="triage")
    outputs = [triage.forward(client, {"question": q}, dict(FORWARD_OPTIONS)) for q in QUESTIONS]
    return rec, outputs


if (
    __name__ == "__main__"
):  # re-record the committed session: python -m tests.recorder.example_app.triage_agent
    from tests.fakes.fake_openai_server import FakeOpenAIServer

    server = FakeOpenAIServer().start()
    try:
        _, answers = record(SESSION, server.base_url, server.directory_url)
        print("\n".join(str(a) for a in answers))
    finally:
        server.stop()
