"""What the recorder and the replayer both do to an app's axllm agent options.

This is where the app's own values enter (its options, its function tools, what its
callbacks return): the one place that reads them as the app gave them.

Only hooks that do not change what axllm sends are ever added (`on_loaded_skills`,
`on_loaded_memories`); the app's `on_used_*` callbacks are wrapped only when it set them,
because setting one switches axllm's usage tracking on (and changes the prompts). Function
tools (dicts with a `handler`, `axllm.Tool` objects, grouped modules) are rewrapped with the
same metadata, so axllm renders them exactly as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from axmem_gui.engine.clients import jsonable

#: axllm reads both spellings of its callback options, the snake_case one first.
CALLBACKS = {
    "loaded_skills": ("on_loaded_skills", "onLoadedSkills"),
    "loaded_memories": ("on_loaded_memories", "onLoadedMemories"),
    "used_skills": ("on_used_skills", "onUsedSkills"),
    "used_memories": ("on_used_memories", "onUsedMemories"),
}
HOST_SEARCHES = {
    "discover": ("on_skills_search", "onSkillsSearch"),
    "recall": ("on_memories_search", "onMemoriesSearch"),
}
_NOT_DATA = {
    "functions",
    "runtime",
    "skillsCatalog",
    "skills_catalog",
    "memoriesCatalog",
    "memories_catalog",
    "contextMap",
    "context_map",
}

Handler = Callable[..., Any]
WrapHandler = Callable[[str, str, Handler], Handler]


def option_key(options: Mapping[str, Any], keys: tuple[str, str]) -> str | None:
    """The key under which the app set a callback option (snake_case first), or None."""
    for key in keys:
        if callable(options.get(key)):
            return key
    return None


def function_tools(options: Mapping[str, Any]) -> Any:
    """The app's `functions` option as it gave it (None without one)."""
    return options.get("functions")


def catalog_option(options: Mapping[str, Any], kind: str) -> list[Any]:
    value = options.get(f"{kind}Catalog", options.get(f"{kind}_catalog"))
    return list(value) if isinstance(value, list | tuple) else []


def catalog_of(options: Mapping[str, Any]) -> dict[str, Any]:
    """The skills and memories the agent was given, in the studio's catalog shape."""
    skills = [
        {
            **{
                k: v
                for k, v in jsonable(s).items()
                if k in ("id", "name", "description", "content")
            },
            "tags": [],
        }
        for s in catalog_option(options, "skills")
        if isinstance(s, Mapping)
    ]
    memories = [
        {"id": jsonable(m.get("id")), "content": jsonable(m.get("content")), "tags": []}
        for m in catalog_option(options, "memories")
        if isinstance(m, Mapping)
    ]
    return {"skills": skills, "memories": memories}


def _function_items(functions: Any) -> list[tuple[Any, str]]:
    out: list[tuple[Any, str]] = []
    for item in functions if isinstance(functions, list | tuple) else []:
        members = item.get("functions") if isinstance(item, Mapping) else None
        if isinstance(members, list):
            out.extend((m, str(item.get("namespace") or "utils")) for m in members)
        else:
            out.append((item, str(_field(item, "namespace") or "utils")))
    return out


def _field(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, Mapping) else getattr(item, key, None)


def describe_functions(functions: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": _field(fn, "name"),
            "namespace": namespace,
            "description": _field(fn, "description"),
            "parameters": jsonable(_field(fn, "parameters")),
            "returns": jsonable(_field(fn, "returns") or None),
        }
        for fn, namespace in _function_items(functions)
    ]


def describe_agent(name: str, signature: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The agent configuration as data (callables, catalogs and the map live elsewhere)."""
    rest = {k: jsonable(v) for k, v in options.items() if k not in _NOT_DATA and not callable(v)}
    cm = options.get("contextMap", options.get("context_map"))
    context_map = (
        {
            k: jsonable(v)
            for k, v in cm.items()
            if k in ("maxChars", "infiniteEvolve", "evolveSteps")
        }
        if isinstance(cm, Mapping)
        else None
    )
    instruction = options.get("instruction")
    return {
        "name": name,
        "signature": signature,
        "instruction": instruction if isinstance(instruction, str) else None,
        "contextFields": jsonable(options.get("contextFields", options.get("context_fields", []))),
        "catalog": {"skills": "all", "memories": "all"},
        "contextMap": context_map,
        "runtime": f"<{type(options['runtime']).__name__}>" if options.get("runtime") else None,
        "functions": describe_functions(options.get("functions")),
        "host_search": {
            "skills": option_key(options, HOST_SEARCHES["discover"]) is not None,
            "memories": option_key(options, HOST_SEARCHES["recall"]) is not None,
        },
        "options": rest,
    }


def wrap_functions(functions: Any, wrap: WrapHandler) -> Any:
    """`functions` with every tool's handler replaced by `wrap(name, namespace, handler)`."""
    if not isinstance(functions, list | tuple):
        return functions

    def one(item: Any, namespace: str) -> Any:
        name = str(_field(item, "name"))
        if isinstance(item, Mapping) and callable(item.get("handler")):
            return {**item, "handler": wrap(name, namespace, item["handler"])}
        if dataclasses.is_dataclass(item) and callable(getattr(item, "handler", None)):
            changes: dict[str, Any] = {"handler": wrap(name, namespace, item.handler)}  # type: ignore[union-attr]
            context_handler = getattr(item, "context_handler", None)
            if callable(context_handler):
                changes["context_handler"] = wrap(name, namespace, context_handler)
            return dataclasses.replace(item, **changes)  # type: ignore[type-var]
        return item

    out: list[Any] = []
    for item in functions:
        members = item.get("functions") if isinstance(item, Mapping) else None
        if isinstance(members, list):
            namespace = str(item.get("namespace") or "utils")
            out.append({**item, "functions": [one(m, namespace) for m in members]})
        else:
            out.append(one(item, str(_field(item, "namespace") or "utils")))
    return out


def ids_of(items: Sequence[Any] | None) -> list[str]:
    return [str(m.get("id")) for m in items or [] if isinstance(m, Mapping) and m.get("id")]
