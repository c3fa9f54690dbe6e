"""Small pure pieces: stage detection, map-update parsing, redaction, replay cursor."""

from __future__ import annotations

from typing import Any

import pytest

from axmem_gui.core.session.contextmap_update import map_items
from axmem_gui.core.session.digest import request_digest
from axmem_gui.core.session.model import Exchange, SearchCall, SearchResult
from axmem_gui.core.session.payloads import reply_fields
from axmem_gui.core.session.redact import REDACTED, redact_headers, redact_url, scrub_secrets
from axmem_gui.core.session.replay_cursor import ReplayCursor, ReplayDivergence, SearchCursor
from axmem_gui.core.session.stages import stage_of_request
from tests.helpers.present import present


def _req(system: str, user: str = "u") -> dict[str, Any]:
    return {
        "chat_prompt": [{"role": "system", "content": system}, {"role": "user", "content": user}]
    }


@pytest.mark.parametrize(
    ("system", "stage"),
    [
        ("You (`distiller`) are the reconnaissance phase", "actor.distiller"),
        ("You (`executor`) are the task-execution stage", "actor.executor"),
        ("## Answer Synthesis Agent\n", "responder"),
        ("You are the context-map Distiller for ... You (`distiller`)", "context_map.distiller"),
        ("You are the context-map Cartographer for", "context_map.cartographer"),
        ("You answer ONE focused question using only the provided context", "llmQuery"),
        ("Something else entirely", "other"),
    ],
)
def test_stage_detection(system: str, stage: str) -> None:
    assert stage_of_request(_req(system)) == stage


def test_map_update_replies_parse_from_lines_and_calls() -> None:
    text = (
        "diagnosis: Learned the layout.\nIt spans lines.\n"
        'itemTags: {"cu-00001": "helpful"}\n'
        'cacheCandidates: [{"section": "parsing_schema", "value": "x"}]'
    )
    fields = reply_fields(
        {"results": [{"content": text}]}, ("diagnosis", "itemTags", "cacheCandidates")
    )
    assert fields["diagnosis"] == "Learned the layout.\nIt spans lines."
    assert fields["itemTags"] == {"cu-00001": "helpful"}
    assert fields["cacheCandidates"][0]["section"] == "parsing_schema"
    call = {"results": [{"function_calls": [{"function": {"params": '{"operations": []}'}}]}]}
    assert reply_fields(call, ("operations",)) == {"operations": []}
    assert reply_fields({"results": [{"content": "operations: not json"}]}, ("operations",)) == {
        "operations": "not json"
    }
    assert reply_fields(None, ("x",)) == {}
    assert map_items("## X\n(desc)\n[cu-00001] a\n[ps-00002] b c\nnot an item") == {
        "cu-00001": "a",
        "ps-00002": "b c",
    }


def test_redaction() -> None:
    headers = redact_headers({"Authorization": "Bearer sk-1", "x-api-key": "k", "Accept": "a"})
    assert headers == {"Authorization": REDACTED, "x-api-key": REDACTED, "Accept": "a"}
    assert (
        redact_url("https://h/v1/m?key=SECRET&alt=sse") == f"https://h/v1/m?key={REDACTED}&alt=sse"
    )
    assert redact_url("https://user:pw@h/v1") == f"https://{REDACTED}@h/v1"
    assert redact_url("http://127.0.0.1:8080/v1/chat") == "http://127.0.0.1:8080/v1/chat"
    value = {"a": ["x sk-secret-123 y"], "sk-secret-123": 1, "n": 5}
    assert scrub_secrets(value, ["sk-secret-123"]) == {
        "a": [f"x {REDACTED} y"],
        REDACTED: 1,
        "n": 5,
    }
    # A short key (or a placeholder such as "local") is redacted where a provider error
    # quotes it back, and left alone in prompts and answers.
    doc = {"prompt": "a local file", "error": {"message": "invalid key local"}}
    assert scrub_secrets(doc, ["local"]) == {
        "prompt": "a local file",
        "error": {"message": f"invalid key {REDACTED}"},
    }


def test_replay_cursor_in_order_then_exhausted() -> None:
    first, second = _req("You (`distiller`) a"), _req("You (`executor`) b")
    exchanges = [
        Exchange(index=i, forward=0, stage=stage_of_request(r), turn=0, digest=request_digest(r),
                 request=r, response={"results": [{"content": str(i)}]})
        for i, r in enumerate((first, second))
    ]  # fmt: skip
    cursor = ReplayCursor(exchanges)
    assert cursor.take(first).index == 0
    with pytest.raises(ReplayDivergence) as err:
        cursor.take(_req("You (`executor`) changed"))
    assert (
        err.value.divergence.kind == "prompt" and "-You (`executor`) b" in err.value.divergence.diff
    )
    with pytest.raises(ReplayDivergence):  # stays stopped
        cursor.take(second)
    fresh = ReplayCursor(exchanges)
    fresh.take(first)
    assert present(fresh.finish()).kind == "missing_calls"


def test_search_cursor_checks_kind_and_queries() -> None:
    call = SearchCall(kind="discover", searches=("a",), results=(SearchResult(id="s1"),))
    cursor = SearchCursor([call])
    with pytest.raises(ReplayDivergence, match=r"recorded discover\(\[\"a\"\]\), replay recall"):
        cursor.take("recall", ["a"])
    assert SearchCursor([call]).take("discover", ["a"]) == [{"id": "s1"}]
