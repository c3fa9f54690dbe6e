"""Agent signatures against both runtimes: what the real @ax-llm/ax 24.0.21 does with each
(tests/fixtures/ax_text/signatures-expected.json, `make golden`) against the studio's check
of its rules (`ts_signature_refusals`) and axllm's own verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axmem_gui.core.ax.profile import TS_PROFILE, load_profile
from axmem_gui.core.session.signature import ts_signature_refusals
from axmem_gui.engine.agent_factory import axllm_signature_refusal
from axmem_gui.services.agents import signature_refusals

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ax_text"
TS = json.loads((FIXTURES / "signatures-expected.json").read_text(encoding="utf-8"))
PROFILE = load_profile(TS_PROFILE)


def test_the_fixture_is_the_packages() -> None:
    assert TS["package"] == "@ax-llm/ax@24.0.21"
    assert TS["verdicts"]["request:string -> answer:string"] == (
        'Invalid Signature: Field name "request" is too generic'
    )


@pytest.mark.parametrize(("signature", "ts_error"), sorted(TS["verdicts"].items()))
def test_the_check_knows_what_the_typescript_package_refuses(
    signature: str, ts_error: str | None
) -> None:
    from axmem_gui.core.session.signature import parse_signature_fields

    try:
        parse_signature_fields(signature)
    except Exception:
        # what the studio cannot even read, it refuses itself (both packages do too)
        assert ts_error is not None
        return
    ours = ts_signature_refusals(signature, PROFILE)
    axllm = axllm_signature_refusal(signature)
    if ours:
        # the first refusal is the one the package throws, word for word
        assert ours[0].message == ts_error
    else:
        # accepted, or refused alike by axllm (duplicate names, image outputs...)
        assert (ts_error is None) == (axllm is None), (signature, ts_error, axllm)


def test_the_sample_issue_names_the_runtime_and_why() -> None:
    [refusal] = signature_refusals("request:string -> answer:string")
    assert refusal.runtime == "@ax-llm/ax 24.0.21"
    assert "too generic" in refusal.message and "userInput" in refusal.hint
    assert axllm_signature_refusal("request:string -> answer:string") is None
    both = signature_refusals("query:string -> answer:string, answer:string")
    assert [r.runtime for r in both] == ["axllm 25.4.6"]
    assert "Duplicate output field name" in both[0].message
