"""The bundled model's launcher adapts requests and answers to what axllm and the model's
chat template need; pure functions, no model needed. And a model server that cannot start
says why in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.core.errors import InputError
from axmem_gui.engine.local_model import LocalModelServer
from axmem_gui.engine.local_server_main import (
    capped_body,
    escape_controls_in_strings,
    fixed_response,
)


def _body(**fields: object) -> bytes:
    return json.dumps({"messages": [{"role": "user", "content": "hi"}], **fields}).encode()


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, 512),
        ({"max_completion_tokens": 64}, 64),
        ({"max_tokens": 100000}, 512),
        ({"max_tokens": True}, 512),
    ],
)
def test_every_request_gets_a_bounded_max_tokens(fields: dict[str, object], expected: int) -> None:
    assert json.loads(capped_body(_body(**fields), 512))["max_tokens"] == expected


def test_a_tool_call_turn_gets_its_arguments_as_content() -> None:
    body = json.dumps(
        {
            "messages": [
                {"role": "assistant", "tool_calls": [{"function": {"arguments": '{"a": 1}'}}]},
                {"role": "user", "content": "next"},
            ]
        }
    ).encode()
    messages = json.loads(capped_body(body, 512))["messages"]
    assert [m["content"] for m in messages] == ['{"a": 1}', "next"]


def test_a_body_that_is_not_an_object_passes_unchanged() -> None:
    assert capped_body(b"[1, 2]", 512) == b"[1, 2]"
    assert capped_body(b"{not json", 512) == b"{not json"


def test_raw_control_characters_in_strings_are_escaped_and_mean_the_same() -> None:
    raw = '{ "javascriptCode": "line 1\nline 2\\"q\\"\tend" }'
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    fixed = escape_controls_in_strings(raw)
    assert json.loads(fixed) == {"javascriptCode": 'line 1\nline 2"q"\tend'}
    assert escape_controls_in_strings('{"a":\n "b"}') == '{"a":\n "b"}'  # outside strings


def test_tool_call_arguments_in_an_answer_become_strict_json() -> None:
    answer = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [{"function": {"name": "f", "arguments": '{"x": "a\nb"}'}}],
                }
            }
        ]
    }
    out = json.loads(fixed_response(json.dumps(answer).encode()))
    arguments = out["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments) == {"x": "a\nb"}
    untouched = json.dumps({"choices": [{"message": {"content": "ok"}}]}).encode()
    assert fixed_response(untouched) == untouched


def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    missing = tmp_path / "missing.gguf"
    server = LocalModelServer(model_file=missing, startup_timeout_s=120)
    with pytest.raises(InputError) as err:
        server.start()
    message = str(err.value)
    assert "\n" not in message
    assert "local model" in message
    assert not server.running
