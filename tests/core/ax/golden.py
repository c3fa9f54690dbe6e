"""Where the golden data from the real TypeScript package lives, and a deep comparer."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
#: Outputs of the real npm package @ax-llm/ax 24.0.21 (see its README; `make golden`).
GOLDEN_DIR = REPO_ROOT / "tests" / "golden" / "ax-24.0.21"

#: endToEnd keys that describe the oracle's scripted model, not Ax's rendering.
ORACLE_ONLY_KEYS = {"output", "errors"}


def golden_file(name: str) -> Any:
    path = GOLDEN_DIR / name
    if not path.is_file():
        pytest.fail(
            f"golden data not found at {path}: it is part of the repository "
            "(tests/golden/ax-24.0.21; regenerate it with `make golden`)"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def differences(got: Any, want: Any, path: str = "", tolerance: float = 1e-9) -> list[str]:
    """Every place where `got` differs from `want`: strings and ids exactly, numbers within
    `tolerance`. Keys only in `got` are ignored (we may report more than the oracle)."""
    out: list[str] = []
    if isinstance(want, bool) or want is None or isinstance(want, str):
        if got != want or type(got) is not type(want):
            out.append(f"{path}: got {got!r}, want {want!r}")
    elif isinstance(want, int | float):
        if isinstance(got, bool) or not isinstance(got, int | float):
            out.append(f"{path}: got {got!r}, want number {want!r}")
        elif not math.isclose(got, want, rel_tol=0, abs_tol=tolerance):
            out.append(f"{path}: got {got!r}, want {want!r}")
    elif isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{path}: got {type(got).__name__}, want object"]
        for key, value in want.items():
            if key not in got:
                out.append(f"{path}.{key}: missing")
            else:
                out.extend(differences(got[key], value, f"{path}.{key}", tolerance))
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: got {got!r}, want {want!r}"]
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            out.extend(differences(g, w, f"{path}[{i}]", tolerance))
    else:  # pragma: no cover - JSON has no other types
        out.append(f"{path}: unexpected {type(want).__name__}")
    return out


def comparable_case(expected_case: dict[str, Any]) -> dict[str, Any]:
    """The parts of an expected case our engine must reproduce."""
    end_to_end = {
        k: v for k, v in expected_case["endToEnd"].items() if k not in ORACLE_ONLY_KEYS
    }
    return {
        "id": expected_case["id"],
        "endToEnd": end_to_end,
        "internals": expected_case["internals"],
    }
