"""A deterministic stand-in for an LLM, driven only by the prompt it receives.

Used to record the shipped sample session (in process, through axllm's own
OpenAI-compatible client with a `transport`) and by the tests' fake HTTP server. It plays
every Ax stage well enough for a full run: the distiller discovers skills with the user's
request as the search, recalls memories, then hands over with final(); the executor
declares the first recalled memory used and finishes; the responder answers every output
field; the context-map Distiller/Cartographer propose small edits. An executor offered a
function tool (an app's agent, recorded with axmem_gui.recorder) calls it once first.
Persona "scripted-b" (any model name ending in "-b") answers differently and skips used(),
so reruns and diffs have something to show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from axmem_gui.core.session.payloads import message_text
from axmem_gui.core.session.stages import (
    ACTOR_DISTILLER,
    ACTOR_EXECUTOR,
    ACTOR_STAGES,
    LLM_QUERY,
    MAP_CARTOGRAPHER,
    MAP_DISTILLER,
    RESPONDER,
    stage_of_request,
)

_WIRE_KEY = re.compile(r"\(wire key: `([A-Za-z0-9_]+)`\)")
_FIELD_LINE = re.compile(r"^([A-Z][A-Za-z0-9 ]*): ?(.*)$")
_MAP_ITEM = re.compile(r"\[([a-z]{2}-\d{5})\]")
_MEMORY_ID = re.compile(r"^ID: `([^`]+)`", re.MULTILINE)
#: The first function tool an executor prompt lists (`utils.lookupOwner(args: ...)`); the
#: studio's own agents have none.
_TOOL = re.compile(r"^`([a-z][A-Za-z0-9_]*\.[A-Za-z][A-Za-z0-9_]*)\(args", re.MULTILINE)


def persona_of(model: str | None) -> str:
    return "scripted-b" if (model or "").endswith("-b") else "scripted-a"


def _user_fields(user: str) -> dict[str, str]:
    """`Title: value` blocks of an Ax user message, by title."""
    fields: dict[str, list[str]] = {}
    current: str | None = None
    previous = ""
    for line in user.split("\n"):
        match = _FIELD_LINE.match(line)
        # Ax separates fields with a blank line; a "Word: ..." line inside a value is not
        # a new field unless it follows one.
        starts = match is not None and (current is None or previous.strip() == "")
        if match and starts and match.group(1) not in ("ID", "Result"):
            current = match.group(1)
            fields[current] = [match.group(2)]
        elif current is not None:
            fields[current].append(line)
        previous = line
    return {k: "\n".join(v).strip() for k, v in fields.items()}


def _js(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _first_value(fields: Mapping[str, str]) -> str:
    for value in fields.values():
        if value:
            return value.split("\n", 1)[0][:160]
    return "the request"


def _distiller(system: str, user: str) -> dict[str, Any]:
    fields = _user_fields(user)
    request = _first_value(fields)
    actions = fields.get("Action Log", "")
    if "llmQuery" in request and "llmQuery(" not in actions:
        # A request that names llmQuery gets one sub-query first (exercises that stage).
        return {
            "javascriptCode": "const r = await llmQuery([{ query: 'What matters most here?', "
            f"context: {{ request: {_js(request)} }} }}]);\nconsole.log(r);"
        }
    can_discover = "### Available Skills" in system or "`await discover(request: { skills" in system
    if can_discover and "Loaded Skills" not in fields and "discover" not in actions:
        return {"javascriptCode": f"await discover({{ skills: [{_js(request)}] }});"}
    if "`recall`" in system and "Memories" not in fields and "recall(" not in actions:
        return {"javascriptCode": f"await recall([{_js(request)}]);"}
    evidence = {"request": request, "skills_loaded": "Loaded Skills" in fields}
    return {
        "javascriptCode": f"await final({_js('Answer: ' + request)}, "
        f"{json.dumps(evidence, ensure_ascii=False)});"
    }


def _executor(system: str, user: str, persona: str) -> dict[str, Any]:
    fields = _user_fields(user)
    actions = fields.get("Action Log", "")
    tool = _TOOL.search(system)
    if tool and f"{tool.group(1)}(" not in actions:
        # An app's agent with a function tool (the recorder's examples): call it once.
        return {
            "javascriptCode": f"const found = await {tool.group(1)}({{ service: 'checkout' }});\n"
            "console.log(JSON.stringify(found));"
        }
    memory_ids = _MEMORY_ID.findall(fields.get("Memories", ""))
    if persona == "scripted-a" and memory_ids and "used(" not in actions:
        reason = "it answered part of the request"
        return {"javascriptCode": f"await used({_js(memory_ids[0])}, {_js(reason)});"}
    task = fields.get("Executor Request", "Answer the request")
    return {
        "javascriptCode": f"await final({_js(task)}, "
        f"{{ memories: {json.dumps(memory_ids)}, persona: {_js(persona)} }});"
    }


def _responder(system: str, user: str, persona: str) -> dict[str, Any]:
    fields = _user_fields(user)
    request = _first_value(fields)
    keys = _WIRE_KEY.findall(system) or ["answer"]
    tone = "Short answer" if persona == "scripted-a" else "Answer (persona b)"
    return {key: f"{tone} to: {request}" for key in keys}


def _map_items(user: str) -> list[str]:
    """Item ids of the map, the context-understanding ones first (the ones reused)."""
    items = sorted(set(_MAP_ITEM.findall(_user_fields(user).get("Context Map", ""))))
    return sorted(items, key=lambda i: (not i.startswith("cu-"), i))


def _map_distiller(user: str) -> dict[str, Any]:
    items = _map_items(user)
    if not items:
        return {
            "diagnosis": "Orientation: requests are operational questions answered from "
            "skill guides and team memories.",
            "itemTags": {},
            "cacheCandidates": [
                {
                    "section": "context_understanding",
                    "value": "Requests concern releases, deploys and incidents",
                    "transferability": "high",
                    "rationale": "Every later request is about the same platform",
                }
            ],
        }
    tags = {item: ("helpful" if i == 0 else "neutral") for i, item in enumerate(items)}
    return {
        "diagnosis": f"Reused {items[0]}; the other items were not needed this time.",
        "itemTags": tags,
        "cacheCandidates": [
            {
                "section": "reusable_results",
                "value": "Guides are loaded with discover before answering",
                "transferability": "medium",
                "rationale": "The same loading step recurs for every request",
            }
        ],
    }


def _map_cartographer(user: str) -> dict[str, Any]:
    items = _map_items(user)
    if not items:
        return {
            "operations": [
                {
                    "type": "ADD",
                    "section": "context_understanding",
                    "content": "Requests concern releases, deploys and incidents",
                },
                {
                    "type": "ADD",
                    "section": "context_roadmap",
                    "content": "Skill guides hold procedures; memories hold team facts",
                },
            ]
        }
    return {
        "operations": [
            {
                "type": "REPLACE",
                "item_id": items[0],
                "content": "Requests concern releases, deploys, incidents and their owners",
            },
            {
                "type": "ADD",
                "section": "reusable_results",
                "content": "Load the matching guide with discover before answering",
            },
        ]
    }


def scripted_fields_for_messages(
    messages: list[Mapping[str, Any]], persona: str, stage: str
) -> dict[str, Any]:
    system = "\n".join(
        message_text(m.get("content")) for m in messages if m.get("role") == "system"
    )
    user = "\n".join(message_text(m.get("content")) for m in messages if m.get("role") == "user")
    if stage == ACTOR_DISTILLER:
        return _distiller(system, user)
    if stage == ACTOR_EXECUTOR:
        return _executor(system, user, persona)
    if stage == RESPONDER:
        return _responder(system, user, persona)
    if stage == MAP_DISTILLER:
        return _map_distiller(user)
    if stage == MAP_CARTOGRAPHER:
        return _map_cartographer(user)
    if stage == LLM_QUERY:
        return {"answer": "scripted sub-answer"}
    return {"answer": "(unrecognised prompt)"}


def _as_field_lines(fields: Mapping[str, Any]) -> str:
    return "\n".join(
        f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
        for k, v in fields.items()
    )


def openai_response(
    body: Mapping[str, Any], counter: int, actor_code: list[str] | None = None
) -> dict[str, Any]:
    """An OpenAI chat-completions response body for an OpenAI wire request body. While
    `actor_code` holds code, each actor turn takes the next piece as the code it writes
    (how the tests play a model that writes hostile code)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping)]
    persona = persona_of(str(body.get("model") or ""))
    # Stage detection works on the wire messages as on axllm's own requests.
    stage = stage_of_request({"chat_prompt": messages})
    fields = scripted_fields_for_messages(messages, persona, stage)
    if actor_code and stage in ACTOR_STAGES:
        fields = {"javascriptCode": actor_code.pop(0)}
    tool_choice = body.get("tool_choice")
    forced = (
        tool_choice.get("function", {}).get("name") if isinstance(tool_choice, Mapping) else None
    )
    message: dict[str, Any]
    if forced:
        arguments = json.dumps(fields, ensure_ascii=False)
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{counter}",
                    "type": "function",
                    "function": {"name": forced, "arguments": arguments},
                }
            ],
        }
        finish = "tool_calls"
        text = arguments
    else:
        text = (
            json.dumps(fields, ensure_ascii=False)
            if body.get("response_format")
            else _as_field_lines(fields)
        )
        message = {"role": "assistant", "content": text}
        finish = "stop"
    prompt_chars = sum(len(message_text(m.get("content"))) for m in messages)
    return {
        "id": f"chatcmpl-scripted-{counter}",
        "object": "chat.completion",
        "model": body.get("model") or persona,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": max(1, len(text) // 4),
            "total_tokens": prompt_chars // 4 + max(1, len(text) // 4),
        },
    }


class ScriptedTransport:
    """An axllm `transport` answering in process with the scripted model (no sockets)."""

    def __init__(self, actor_code: list[str] | None = None) -> None:
        self.count = 0
        self.actor_code = list(actor_code or [])

    def __call__(self, call: Mapping[str, Any]) -> dict[str, Any]:
        self.count += 1
        body = call.get("json")
        if str(call.get("url", "")).rstrip("/").endswith("/models"):
            return {"status": 200, "json": {"object": "list", "data": []}}
        if not isinstance(body, Mapping):
            return {"status": 400, "json": {"error": {"message": "expected a JSON body"}}}
        return {"status": 200, "json": openai_response(body, self.count, self.actor_code)}
