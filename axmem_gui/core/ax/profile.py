"""Ax version profiles: the data (not code) that makes rendering and search Ax-exact.

A profile is `profiles/<name>.json`, shipped as package data, one per runtime release:

- `ax-<version>`: the TypeScript package @ax-llm/ax (what a TypeScript app sends), produced
  from the published npm package by `tools/ax_profile/build_profile.py`;
- `axllm-<version>`: its Python port axllm (what the studio's own live runs send),
  produced from the installed package by `tools/ax_profile/build_axllm_profile.py`. Its
  `rules` name the code paths that differ (`core/ax/axllm_rules.py`).

Code in `core/ax` reads every constant and wording from the profile, so supporting another
release means generating another profile (and checking the golden tests), not editing code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from axmem_gui.core.errors import InputError

DEFAULT_AX_VERSION = "24.0.21"
#: The axllm release the studio pins (pyproject.toml): the profile its live runs follow.
AXLLM_VERSION = "25.4.6"
AXLLM_PROFILE = f"axllm-{AXLLM_VERSION}"
TS_PROFILE = f"ax-{DEFAULT_AX_VERSION}"
#: `rules.runtime` of a profile.
RUNTIME_AX = "ax"
RUNTIME_AXLLM = "axllm"


@dataclass(frozen=True)
class RankDefaults:
    top_k: float
    min_score: float
    margin_ratio: float
    min_docs: float


@dataclass(frozen=True)
class StageField:
    """One input field of a stage signature; `when` names the mode that adds it."""

    name: str | None  # None stands for the agent's own (non-context) inputs
    when: str | None = None


@dataclass(frozen=True)
class SignatureMessages:
    """The package's own wording of what it refuses in a signature (`{name}`...)."""

    prefix: str
    generic: str
    generic_hint: str
    invalid: str
    invalid_hint: str
    short: str
    short_hint: str
    long: str
    long_hint: str
    reserved_input: str
    reserved_output: str
    description: str
    flow_long: str
    flow_long_hint: str


@dataclass(frozen=True)
class SignatureRules:
    """What `agent(signature, ...)` refuses (an @ax-llm/ax profile's `signature`)."""

    generic_names: frozenset[str]
    generic_examples: tuple[tuple[str, tuple[str, ...]], ...]  # (side, examples)
    name_patterns: tuple[str, ...]
    min_length: int
    max_length: int
    reserved_inputs: frozenset[str]
    reserved_outputs: frozenset[str]
    flow_prefixes: tuple[tuple[str, tuple[str, ...]], ...]  # (side, stage prefixes)
    messages: SignatureMessages

    def examples(self, side: str) -> tuple[str, ...]:
        return dict(self.generic_examples)[side]

    def prefixes(self, side: str) -> tuple[str, ...]:
        return dict(self.flow_prefixes)[side]


def _signature_rules(data: dict[str, Any] | None) -> SignatureRules | None:
    if data is None:
        return None
    m = data["messages"]
    return SignatureRules(
        generic_names=frozenset(data["genericNames"]),
        generic_examples=tuple((k, tuple(v)) for k, v in data["genericExamples"].items()),
        name_patterns=tuple(data["namePatterns"]),
        min_length=int(data["minLength"]),
        max_length=int(data["maxLength"]),
        reserved_inputs=frozenset(data["reservedInputs"]),
        reserved_outputs=frozenset(data["reservedOutputs"]),
        flow_prefixes=tuple((k, tuple(v)) for k, v in data["flowPrefixes"].items()),
        messages=SignatureMessages(
            prefix=m["prefix"],
            generic=m["generic"],
            generic_hint=m["genericHint"],
            invalid=m["invalid"],
            invalid_hint=m["invalidHint"],
            short=m["short"],
            short_hint=m["shortHint"],
            long=m["long"],
            long_hint=m["longHint"],
            reserved_input=m["reservedInput"],
            reserved_output=m["reservedOutput"],
            description=m["description"],
            flow_long=m["flowLong"],
            flow_long_hint=m["flowLongHint"],
        ),
    )


@dataclass(frozen=True)
class AxProfile:
    version: str
    package: str
    #: "ax-24.0.21", "axllm-25.4.6": what sessions, files and the CLI call it.
    name: str
    stopwords: frozenset[str]
    punctuation: str
    diacritic_range: tuple[int, int]
    rank_defaults: RankDefaults
    skill_name_weight: int
    skill_description_weight: int
    skill_content_chars: int
    skill_search_top_k: int
    skill_index_line: str
    skill_index_description: str
    skill_loaded_block: str
    skill_block_separator: str
    memory_content_chars: int
    memory_search_top_k: int
    memory_hint_snippet_chars: int
    memory_block: str
    memory_block_separator: str
    hint_formats: dict[str, str]
    hint_section_separator: str
    templates: dict[str, dict[str, str]]
    stage_fields: dict[str, tuple[StageField, ...]]
    javascript_aliases: frozenset[str]
    javascript_code_field: str
    code_field_suffix: str
    fallback_code_field: str
    default_runtime_language: str
    #: `[POLICY]` error texts per primitive ("discover", "recall"), keyed by what is wrong:
    #: notStringOrArray, emptyArray, notString, blankEntry.
    policy: dict[str, dict[str, str]]
    #: "Value for input field '{field}' is required." (an empty required input).
    required_input: str
    #: The reference runtime's text engine (Node's ICU and Unicode versions, the locale).
    reference_text: dict[str, str]
    raw: dict[str, Any]
    #: RUNTIME_AX (the TypeScript package) or RUNTIME_AXLLM (its Python port).
    runtime: str = RUNTIME_AX
    #: axllm only: its tokenizer's punctuation class and identifier splitters.
    punctuation_pattern: str = ""
    identifier_patterns: tuple[str, ...] = ()
    #: What the runtime refuses in an agent signature (None: the profile does not say).
    signature: SignatureRules | None = None

    @property
    def is_axllm(self) -> bool:
        return self.runtime == RUNTIME_AXLLM

    @property
    def runtime_label(self) -> str:
        """What a person calls the runtime: "@ax-llm/ax 24.0.21 (TypeScript)"."""
        if self.is_axllm:
            return f"axllm {self.version} (Python)"
        return f"@ax-llm/ax {self.version} (TypeScript)"


def _stage_fields(raw: dict[str, Any]) -> dict[str, tuple[StageField, ...]]:
    out: dict[str, tuple[StageField, ...]] = {}
    for stage, fields in raw.items():
        out[stage] = tuple(
            StageField(name=None if f.get("agentInputs") else f["name"], when=f.get("when"))
            for f in fields
        )
    return out


def profile_from_json(data: dict[str, Any]) -> AxProfile:
    ranker, skills = data["ranker"], data["skills"]
    memories, hints = data["memories"], data["hints"]
    defaults = ranker["defaults"]
    runtime = data["runtime"]
    rules = data.get("rules", {})
    name = data["profile"]
    return AxProfile(
        version=name.split("-", 1)[1],
        package=data["package"],
        name=name,
        runtime=rules.get("runtime", RUNTIME_AX),
        punctuation_pattern=ranker.get("punctuationPattern", ""),
        identifier_patterns=tuple(ranker.get("identifierPatterns", ())),
        signature=_signature_rules(data.get("signature")),
        stopwords=frozenset(data["stopwords"]),
        punctuation=ranker["punctuation"],
        diacritic_range=(ranker["diacriticRange"][0], ranker["diacriticRange"][1]),
        rank_defaults=RankDefaults(
            top_k=defaults["topK"],
            min_score=defaults["minScore"],
            margin_ratio=defaults["marginRatio"],
            min_docs=defaults["minDocs"],
        ),
        skill_name_weight=skills["nameWeight"],
        skill_description_weight=skills["descriptionWeight"],
        skill_content_chars=skills["contentChars"],
        skill_search_top_k=skills["searchTopK"],
        skill_index_line=skills["indexLine"],
        skill_index_description=skills["indexDescription"],
        skill_loaded_block=skills["loadedBlock"],
        skill_block_separator=skills["blockSeparator"],
        memory_content_chars=memories["contentChars"],
        memory_search_top_k=memories["searchTopK"],
        memory_hint_snippet_chars=memories["hintSnippetChars"],
        memory_block=memories["block"],
        memory_block_separator=memories["blockSeparator"],
        hint_formats={
            k: hints[k] for k in ("moduleLine", "skillLine", "memoryLine", "memorySnippet")
        },
        hint_section_separator=hints["sectionSeparator"],
        templates={stage: dict(parts) for stage, parts in data["templates"].items()},
        stage_fields=_stage_fields(data["stageFields"]),
        javascript_aliases=frozenset(runtime["javascriptAliases"]),
        javascript_code_field=runtime["javascriptCodeField"],
        code_field_suffix=runtime["codeFieldSuffix"],
        fallback_code_field=runtime["fallbackCodeField"],
        default_runtime_language=runtime["defaultLanguage"],
        policy={k: dict(v) for k, v in data["policy"].items() if isinstance(v, dict)},
        required_input=data["policy"]["requiredInput"],
        reference_text=dict(data["text"]),
        raw=data,
    )


def available_profiles() -> list[str]:
    """Every shipped profile's name: ["ax-24.0.21", "axllm-25.4.6"]."""
    folder = resources.files("axmem_gui.core.ax").joinpath("profiles")
    names = [
        p.name.removesuffix(".json")
        for p in folder.iterdir()
        if p.name.endswith(".json") and p.name.startswith(("ax-", "axllm-"))
    ]
    return sorted(names)


def available_versions() -> list[str]:
    """The @ax-llm/ax versions with a profile (the names without "ax-")."""
    return [n.removeprefix("ax-") for n in available_profiles() if n.startswith("ax-")]


def profile_name(version: str) -> str:
    """"24.0.21" -> "ax-24.0.21"; a profile name stays as it is."""
    return version if version.startswith(("ax-", "axllm-")) else f"ax-{version}"


@lru_cache(maxsize=8)
def load_profile(version: str = DEFAULT_AX_VERSION) -> AxProfile:
    """The profile `version` names: an @ax-llm/ax version ("24.0.21") or a profile name
    ("ax-24.0.21", "axllm-25.4.6"); InputError if there is none."""
    name = profile_name(version)
    resource = resources.files("axmem_gui.core.ax").joinpath("profiles", f"{name}.json")
    if not resource.is_file():
        known = ", ".join(available_profiles()) or "none"
        raise InputError(f"no Ax profile for version {version!r} (available: {known})")
    return profile_from_json(json.loads(resource.read_text(encoding="utf-8")))


def search_profile(profile: AxProfile) -> AxProfile:
    """The profile whose search answers discover and recall in a run with `profile`'s
    prompts: its own for Ax; for axllm the studio's Ax search, which its runs install as
    axllm's host search (engine/search.py)."""
    return load_profile(DEFAULT_AX_VERSION) if profile.is_axllm else profile
