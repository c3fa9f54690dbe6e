#!/usr/bin/env python3
"""Build `axmem_gui/core/ax/profiles/axllm-<version>.json` from the installed axllm.

axllm (the Python port of Ax the studio runs live) renders the same sections as
@ax-llm/ax with its own rules: catalog clean-up (trimmed ids and names, entries without a
name dropped, one line per id), ordering by code point, its own tokenizer, stopwords and
ranker for the relevance hints and its built-in search, and Python string semantics
(lengths and slices in code points). `core/ax/axllm_rules.py` implements those rules;
this profile holds axllm's data: templates, stage fields, formats, constants, stopwords,
error wording. Everything is read from the installed package (its source for literals,
agents built with it for the stage signatures) and the build fails loudly when a pattern
is not found, so a new axllm release cannot silently produce a wrong profile.

    python -m tools.ax_profile.build_axllm_profile [--out PATH]

Data in the profile comes from axllm (Apache-2.0); see NOTICE at the repo root.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import inspect
import itertools
import json
import re
import sys
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from tools.ax_profile.build_profile import ExtractionError, template_sections

REPO_ROOT = Path(__file__).resolve().parents[2]
PROFILES_DIR = REPO_ROOT / "axmem_gui" / "core" / "ax" / "profiles"


def _agent_module() -> Any:
    return importlib.import_module("axllm.agent")


def _source(name: str) -> str:
    return inspect.getsource(getattr(_agent_module(), name))


def _find(pattern: str, text: str, what: str) -> re.Match[str]:
    match = re.search(pattern, text, re.DOTALL)
    if match is None:
        raise ExtractionError(f"axllm: cannot find {what} (pattern {pattern!r})")
    return match


def _python_string(literal: str) -> str:
    value = ast.literal_eval(literal)
    if not isinstance(value, str):
        raise ExtractionError(f"not a string literal: {literal[:40]!r}")
    return value


def _json_literal(function: str, marker: str, what: str) -> Any:
    source = _source(function)
    start = source.rfind("_core_json_parse(", 0, source.find(marker))
    match = _find(r'_core_json_parse\(("(?:[^"\\]|\\.)*")\)', source[max(start, 0) :], what)
    return json.loads(_python_string(match.group(1)))


def _format(function: str, pattern: str, names: tuple[str, ...], what: str) -> str:
    """A `_core_string_format("...", a, b)` template with its `{}` named in order."""
    literal = _python_string(_find(pattern, _source(function), what).group(1))
    parts = literal.split("{}")
    if len(parts) != len(names) + 1:
        raise ExtractionError(f"axllm: {what}: {literal!r} does not take {len(names)} values")
    out = parts[0]
    for name, part in zip(names, parts[1:], strict=True):
        out += "{" + name + "}" + part
    return out


STRING = r'("(?:[^"\\]|\\.)*")'


def extract_templates() -> dict[str, dict[str, str]]:
    prompts = _json_literal(
        "_render_rlm_executor_description", "axir-rlm-prompts-v1", "the stage prompt templates"
    )
    return template_sections({s: prompts[f"{s}_template"] for s in ("executor", "distiller")})


def extract_ranker() -> dict[str, Any]:
    tokens = _source("_agent_relevance_tokens")
    stopwords = json.loads(
        _python_string(
            _find(r"stopwords = _core_json_parse\(" + STRING + r"\)", tokens, "stopwords").group(1)
        )
    )
    punctuation = _python_string(
        _find(
            r"clean = _core_regex_replace\(" + STRING + r', " ", lower\)', tokens, "punctuation"
        ).group(1)
    )
    identifier = _source("_agent_identifier_tokens")
    rank = _source("_agent_rank_documents")
    defaults = {
        key: float(
            _find(rf'_core_get\(options, "{key}", ([0-9.]+)\)', rank, f"default {key}").group(1)
        )
        for key in ("topK", "minScore", "marginRatio", "minDocs")
    }
    for key in ("topK", "minDocs"):
        defaults[key] = int(defaults[key])
    return {
        "stopwords": stopwords,
        "punctuationPattern": punctuation,
        "identifierPatterns": [
            _python_string(m.group(1))
            for m in re.finditer(r"_core_regex_replace\(" + STRING, identifier)
        ],
        "defaults": defaults,
    }


def extract_skills() -> dict[str, Any]:
    search = _source("_agent_catalog_skill_search")
    content = int(
        _find(r"_core_string_slice\(content, 0, (\d+)\)", search, "skill content cut").group(1)
    )
    top_k = int(_find(r'opts\["topK"\] = (\d+)', search, "discover topK").group(1))
    weight = int(_find(r'name_field\["weight"\] = (\d+)', search, "name weight").group(1))
    description = int(
        _find(r'description_field\["weight"\] = (\d+)', search, "description weight").group(1)
    )
    return {
        "nameWeight": weight,
        "descriptionWeight": description,
        "contentChars": content,
        "searchTopK": top_k,
        "indexLine": _format(
            "_render_agent_skills_catalog_list",
            r"line = _core_string_format\(" + STRING + r", id, name\)",
            ("id", "name"),
            "index line",
        ),
        "indexDescription": _format(
            "_render_agent_skills_catalog_list",
            r"line = _core_string_format\(" + STRING + r", line, description\)",
            ("line", "description"),
            "index description",
        ).removeprefix("{line}"),
        "loadedBlock": _format(
            "_agent_render_loaded_skills",
            r"_core_string_format\(" + STRING + r", name, id, content\)",
            ("name", "id", "content"),
            "loaded skill block",
        ),
        "blockSeparator": _python_string(
            _find(
                r"_core_string_join\(" + STRING + r", lines\)",
                _source("_agent_render_loaded_skills"),
                "skill separator",
            ).group(1)
        ),
    }


def extract_memories() -> dict[str, Any]:
    search = _source("_agent_catalog_memory_search")
    hints = _source("_agent_rank_relevance_memories")
    return {
        "contentChars": int(
            _find(r"_core_string_slice\(content, 0, (\d+)\)", search, "memory cut").group(1)
        ),
        "searchTopK": int(_find(r'opts\["topK"\] = (\d+)', search, "recall topK").group(1)),
        "hintSnippetChars": int(
            _find(r"_core_string_slice\(trimmed, 0, (\d+)\)", hints, "snippet cut").group(1)
        ),
        "block": _format(
            "_agent_render_loaded_memories",
            r"_core_string_format\(" + STRING + r", id, content\)",
            ("id", "content"),
            "memory block",
        ),
        "blockSeparator": _python_string(
            _find(
                r"_core_string_join\(" + STRING + r", lines\)",
                _source("_agent_render_loaded_memories"),
                "memory separator",
            ).group(1)
        ),
    }


def extract_hints() -> dict[str, Any]:
    fn = "_agent_render_relevance_hints"
    return {
        "moduleLine": _format(
            fn,
            r"line = _core_string_format\(" + STRING + r", namespace\)",
            ("namespace",),
            "module line",
        ),
        "skillLine": _format(
            fn,
            r"line = _core_string_format\(" + STRING + r", id, name\)",
            ("id", "name"),
            "skill line",
        ),
        "memoryLine": _format(
            fn, r"line2 = _core_string_format\(" + STRING + r", id2\)", ("id",), "memory line"
        ),
        "memorySnippet": _format(
            fn,
            r"line2 = _core_string_format\(" + STRING + r", line2, snippet\)",
            ("line", "snippet"),
            "snippet",
        ).removeprefix("{line}"),
        "sectionOrder": ["Modules", "Skills", "Memories"],
        "sectionSeparator": _python_string(
            _find(
                r"out = _core_string_join\(" + STRING + r", sections\)",
                _source(fn),
                "section separator",
            ).group(1)
        ),
    }


def _stage_inputs(memories: bool, hints: bool, context_map: bool) -> dict[str, list[str]]:
    import axllm
    from axllm import AxQuickJsCodeRuntime
    from axllm.signature import parse_signature

    options: dict[str, Any] = {
        "runtime": AxQuickJsCodeRuntime(),  # type: ignore[no-untyped-call]  # axllm's own
        "skillsCatalog": [{"id": "a", "name": "A", "content": "x"}],
        "relevanceRanking": hints,
    }
    if memories:
        options["memoriesCatalog"] = [{"id": "m", "content": "c"}]
    if context_map:
        options["contextMap"] = {"maxChars": 1000}
    agent = axllm.agent("agentInput:string -> answer:string", options)
    return {
        stage: [
            f.name for f in parse_signature(agent.state[f"{stage}_signature"]).input_fields
        ]
        for stage in ("executor", "distiller")
    }


MODES = ("memoriesMode", "relevanceHints", "contextMap")


def extract_stage_fields() -> dict[str, list[dict[str, Any]]]:
    """Each stage's input fields in signature order, each with the mode that adds it:
    found by building agents with every combination of the modes."""
    combos = {flags: _stage_inputs(*flags) for flags in itertools.product((False, True), repeat=3)}
    out: dict[str, list[dict[str, Any]]] = {}
    for stage in ("executor", "distiller"):
        full = combos[(True, True, True)][stage]
        fields: list[dict[str, Any]] = []
        for name in full:
            present = {flags for flags, stages in combos.items() if name in stages[stage]}
            if name == "agentInput":
                fields.append({"agentInputs": True})
                continue
            if len(present) == len(combos):
                fields.append({"name": name})
                continue
            when = [mode for i, mode in enumerate(MODES) if present == {f for f in combos if f[i]}]
            if len(when) != 1:
                raise ExtractionError(f"axllm {stage} field {name}: present in {sorted(present)}")
            fields.append({"name": name, "when": when[0]})
        out[stage] = fields
    return out


def extract_policy() -> dict[str, Any]:
    source = _source("_normalize_agent_string_list")
    texts = {
        key: _python_string(
            _find(r"_core_string_format\(" + STRING, source[source.find(anchor) :], key).group(1)
        )
        for key, anchor in (
            ("blankEntry", "empty = _core_eq(trimmed"),
            ("notStringOrArray", "not_list = _core_not"),
            ("notString", "bad_item = _core_not"),
            ("emptyArray", "empty_out = _core_eq"),
        )
    }
    discover = _find(
        r'_normalize_agent_string_list\(raw_skills, "([^"]+)"\)',
        _source("_normalize_agent_discover_request"),
        "discover label",
    ).group(1)
    recall = _find(
        r'_normalize_agent_string_list\(request, "([^"]+)"\)',
        _source("_normalize_agent_recall_request"),
        "recall label",
    ).group(1)
    return {
        "discover": {k: v.replace("{}", discover) for k, v in texts.items()},
        "recall": {k: v.replace("{}", recall) for k, v in texts.items()},
        "requiredInput": "Value for input field '{field}' is required.",
    }


def build() -> dict[str, Any]:
    version = package_version("axllm")
    spec = importlib.util.find_spec("axllm.agent")
    assert spec is not None and spec.origin is not None, "axllm is not installed"
    origin = Path(spec.origin)
    ranker = extract_ranker()
    stopwords = ranker.pop("stopwords")
    return {
        "profile": f"axllm-{version}",
        "package": f"axllm=={version}",
        "source": {
            "module": "axllm/agent.py",
            "moduleSha256": hashlib.sha256(origin.read_bytes()).hexdigest(),
            "license": "Apache-2.0 (ax-llm/ax); see NOTICE",
            "generatedBy": "tools/ax_profile/build_axllm_profile.py",
        },
        # How this runtime differs in code, not data (core/ax/axllm_rules.py).
        "rules": {"runtime": "axllm", "order": "codePoint", "strings": "codePoints"},
        "ranker": {
            "punctuation": "",
            "punctuationPattern": ranker["punctuationPattern"],
            "identifierPatterns": ranker["identifierPatterns"],
            "diacriticRange": [0, -1],
            "defaults": ranker["defaults"],
        },
        "skills": extract_skills(),
        "memories": extract_memories(),
        "hints": extract_hints(),
        "templates": extract_templates(),
        "stageFields": extract_stage_fields(),
        "runtime": {
            "defaultLanguage": "JavaScript",
            "javascriptAliases": ["javascript", "js", "ecmascript"],
            "javascriptCodeField": "javascriptCode",
            "codeFieldSuffix": "Code",
            "fallbackCodeField": "runtimeCode",
        },
        "policy": extract_policy(),
        "text": {"referenceRuntime": f"Python (axllm {version})", "collationLocale": "code point"},
        "stopwords": stopwords,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    profile = build()
    out = args.out or PROFILES_DIR / f"{profile['profile']}.json"
    out.write_text(json.dumps(profile, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out}: {len(profile['stopwords'])} stopwords", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
