"""Our engine on the same inputs as the oracle, and the comparison of both answers."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
from pathlib import Path
from typing import Any

from axmem_gui.core.ax.conformance import run_case, run_cases
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.contextmap import (
    apply_update,
    stored_map_from_json_value,
    ts_snapshot_value,
)
from axmem_gui.core.errors import InputError

CLI_SCRATCH = Path(__file__).resolve().parents[2] / "build" / "conformance" / "cli-scratch"
#: endToEnd keys that describe the oracle's scripted model, not Ax's rendering.
ORACLE_ONLY_KEYS = {"output", "errors"}
TOLERANCE = 1e-9


def differences(got: Any, want: Any, path: str = "") -> list[str]:
    """Every place where `got` differs from `want`: strings, ids and order exactly, numbers
    within 1e-9. Keys only in `got` are ignored (we may report more than the oracle)."""
    out: list[str] = []
    if isinstance(want, bool) or want is None or isinstance(want, str):
        if got != want or type(got) is not type(want):
            out.append(f"{path}: ours {got!r}, Ax {want!r}")
    elif isinstance(want, int | float):
        if isinstance(got, bool) or not isinstance(got, int | float):
            out.append(f"{path}: ours {got!r}, Ax number {want!r}")
        elif not math.isclose(got, want, rel_tol=0, abs_tol=TOLERANCE):
            out.append(f"{path}: ours {got!r}, Ax {want!r}")
    elif isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{path}: ours {type(got).__name__}, Ax object"]
        for key, value in want.items():
            if key not in got:
                out.append(f"{path}.{key}: missing in ours (Ax {value!r})")
            else:
                out.extend(differences(got[key], value, f"{path}.{key}"))
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: ours {got!r}, Ax {want!r}"]
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            out.extend(differences(g, w, f"{path}[{i}]"))
    return out


def comparable(expected_case: dict[str, Any]) -> dict[str, Any]:
    """The parts of an oracle case our engine must reproduce."""
    end_to_end = {k: v for k, v in expected_case["endToEnd"].items() if k not in ORACLE_ONLY_KEYS}
    return {"endToEnd": end_to_end, "internals": expected_case["internals"]}


def crash(exc: BaseException) -> str:
    return f"crash: {type(exc).__name__}: {exc}"[:300]


def ours_case(case: dict[str, Any], profile: AxProfile) -> dict[str, Any] | str:
    """Our answer for one case, or a one-line description of how we failed."""
    try:
        return run_case(case, profile, str(case.get("id")))
    except InputError as exc:
        return f"rejected: {exc}"[:300]
    except Exception as exc:
        return crash(exc)


def compare_case(
    case: dict[str, Any], oracle: dict[str, Any], profile: AxProfile, scratch: Path = CLI_SCRATCH
) -> list[str]:
    """Our engine through the Python API, then through the CLI (`axmem conformance run`,
    its files in `scratch`)."""
    diffs = compare_ours(ours_case(case, profile), oracle)
    _output, failure = cli_run({"cases": [case]}, scratch)
    return [*diffs, failure] if failure else diffs


def cli_run(cases_file: dict[str, Any], work: Path) -> tuple[dict[str, Any] | None, str | None]:
    """Run `axmem conformance run CASES.json -o OUT.json` (in process) on a case file, the
    way a user would: (its output, None), or (None, what went wrong)."""
    from axmem_gui.cli.main import main as axmem

    work.mkdir(parents=True, exist_ok=True)
    cases_path, out_path = work / "cases.json", work / "out.json"
    cases_path.write_text(json.dumps(cases_file, ensure_ascii=True), encoding="utf-8")
    out_path.unlink(missing_ok=True)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            code = axmem(["conformance", "run", str(cases_path), "-o", str(out_path)])
    except Exception as exc:
        return None, "axmem conformance run " + crash(exc)
    if code != 0:
        return None, f"axmem conformance run exited {code}: {err.getvalue().strip()[:200]}"
    output: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8"))
    return output, None


def compare_ours(ours: dict[str, Any] | str, oracle: dict[str, Any]) -> list[str]:
    if isinstance(ours, str):
        return [ours]
    return differences(ours, comparable(oracle))


def compare_probes(
    cases_file: dict[str, Any], oracle: dict[str, Any], profile: AxProfile
) -> list[str]:
    """Tokenizer and collation probes (no cases)."""
    probes = {
        "tokenizer": cases_file.get("tokenizer", {}),
        "collation": cases_file.get("collation", []),
    }
    try:
        ours = run_cases({**probes, "cases": []}, profile, "probes")
    except Exception as exc:
        return [crash(exc)]
    return differences(
        {"tokenizer": ours["tokenizer"], "collation": ours["collation"]},
        {"tokenizer": oracle["tokenizer"], "collation": oracle["collation"]},
    )


def ours_context_map(case: dict[str, Any]) -> dict[str, Any]:
    try:
        state = stored_map_from_json_value(case["snapshot"], str(case["id"])).state
        result = apply_update(state, case["payload"])
    except InputError as exc:
        return {"id": case["id"], "error": str(exc)}
    except Exception as exc:
        return {"id": case["id"], "crash": crash(exc)}
    return {
        "id": case["id"],
        "status": result.status.value,
        "step": result.step,
        "changed": result.changed,
        "operations": [op.to_json() for op in result.operations],
        "snapshot": ts_snapshot_value(result.state),
    }


def compare_context_map(case: dict[str, Any], oracle: dict[str, Any]) -> list[str]:
    ours = ours_context_map(case)
    if "crash" in ours:
        return [ours["crash"]]
    if "error" in oracle or "error" in ours:
        if "error" in oracle and "error" in ours:
            return []  # both refuse the input (messages are each side's own)
        return [f"refusal: ours {ours.get('error')!r}, Ax {oracle.get('error')!r}"]
    return differences(ours, oracle)


_INDEX = re.compile(r"\[\d+\]")


def signature(diffs: list[str]) -> frozenset[str]:
    """What kind of difference: the paths without list indices (or the crash's type)."""
    out = set()
    for d in diffs:
        head = d.split(": ", 1)[0] if d.startswith(".") else d.split(":", 2)[0]
        out.add(_INDEX.sub("[]", head))
    return frozenset(out)
