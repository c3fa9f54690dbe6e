"""Shrink a differing case to a minimal reproduction (greedy, one change at a time)."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from typing import Any

Case = dict[str, Any]
LIST_KEYS = (
    "skills",
    "memories",
    "presetSkills",
    "preloadedMemories",
    "discoverCalls",
    "recallCalls",
)
OPTIONAL_KEYS = (
    "task",
    "relevanceRanking",
    "presetSkills",
    "preloadedMemories",
    "discoverCalls",
    "recallCalls",
    "skills",
    "memories",
)
MAX_PROBES = 400


def _shorter_strings(value: str) -> Iterator[str]:
    if len(value) > 1:
        half = len(value) // 2
        yield value[:half]
        yield value[half:]
    words = value.split(" ")
    if 1 < len(words) <= 12:
        for i in range(len(words)):
            yield " ".join(words[:i] + words[i + 1 :])


def _list_removals(items: list[Any]) -> Iterator[list[Any]]:
    n = len(items)
    if n > 3:
        yield items[: n // 2]
        yield items[n // 2 :]
    if n > 1:
        for i in range(n):
            yield items[:i] + items[i + 1 :]


def _agent_candidates(case: Case) -> Iterator[Case]:
    for key in OPTIONAL_KEYS:
        if key in case:
            smaller = {k: v for k, v in case.items() if k != key}
            yield smaller
    for key in LIST_KEYS:
        items = case.get(key)
        if isinstance(items, list):
            for shorter in _list_removals(items):
                yield {**case, key: shorter}
    for key in ("discoverCalls", "recallCalls"):
        for i, call in enumerate(case.get(key, [])):
            if isinstance(call, list):
                for shorter in _list_removals(call):
                    calls = copy.deepcopy(case[key])
                    calls[i] = shorter
                    yield {**case, key: calls}
                for j, q in enumerate(call):
                    if isinstance(q, str):
                        for s in _shorter_strings(q):
                            calls = copy.deepcopy(case[key])
                            calls[i][j] = s
                            yield {**case, key: calls}
    for key in ("skills", "memories", "presetSkills", "preloadedMemories"):
        for i, entry in enumerate(case.get(key, [])):
            if not isinstance(entry, dict):
                continue
            for field in list(entry):
                if field not in ("id", "name", "content"):
                    entries = copy.deepcopy(case[key])
                    del entries[i][field]
                    yield {**case, key: entries}
                if isinstance(entry[field], str):
                    for s in _shorter_strings(entry[field]):
                        entries = copy.deepcopy(case[key])
                        entries[i][field] = s
                        yield {**case, key: entries}
    if isinstance(case.get("task"), str):
        for s in _shorter_strings(case["task"]):
            yield {**case, "task": s}


def _context_map_candidates(case: Case) -> Iterator[Case]:
    payload = case["payload"]
    for key in list(payload):
        yield {**case, "payload": {k: v for k, v in payload.items() if k != key}}
    ops = payload.get("operations")
    if isinstance(ops, list):
        for shorter in _list_removals(ops):
            yield {**case, "payload": {**payload, "operations": shorter}}
    tags = payload.get("itemTags")
    if isinstance(tags, dict):
        for key in list(tags):
            yield {
                **case,
                "payload": {**payload, "itemTags": {k: v for k, v in tags.items() if k != key}},
            }
    snapshot = case["snapshot"]
    for key in list(snapshot):
        if key not in ("version", "text"):
            yield {**case, "snapshot": {k: v for k, v in snapshot.items() if k != key}}
    lines = snapshot["text"].split("\n")
    for shorter in _list_removals(lines):
        yield {**case, "snapshot": {**snapshot, "text": "\n".join(shorter)}}


def shrink(case: Case, still_differs: Callable[[Case], bool], deadline: float) -> Case:
    """The smallest case reached by removing parts while `still_differs` holds."""
    current = case
    probes = 0
    candidates = _context_map_candidates if "snapshot" in case else _agent_candidates
    progress = True
    while progress and probes < MAX_PROBES and time.monotonic() < deadline:
        progress = False
        for candidate in candidates(current):
            if probes >= MAX_PROBES or time.monotonic() >= deadline:
                break
            probes += 1
            if still_differs(candidate):
                current = candidate
                progress = True
                break
    return current
