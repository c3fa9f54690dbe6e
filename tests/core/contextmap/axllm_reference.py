"""The real axllm (25.4.6) context-map update, as a reference to compare against.

Two ways in, both the installed package's own code:

* `axllm_evolve`: axllm's `_agent_evolve_context_map`, the function the agent calls after a
  forward, fed by a scripted client that returns the Distiller's and the Cartographer's
  replies in Ax's `field: value` format (so the replies go through AxGen's real parsing);
* `axllm_apply`: the private helpers that function calls, in the same order, for inputs
  AxGen would never hand over (itemTags that are not objects, and so on).

Only tests use this; core never imports axllm.
"""

from __future__ import annotations

import copy
import importlib
import json
from typing import Any

_ax = importlib.import_module("axllm.agent")


def axllm_restore(context_map: dict[str, Any]) -> dict[str, Any]:
    """What `restore_runtime_state` does to a context_map before any update."""
    restored = dict(context_map)
    restored["text"] = _ax._context_map_normalize_text(restored.get("text"))
    restored.pop("next_id", None)
    return restored


class ScriptedMapClient:
    """An axllm chat client that answers the Distiller, then the Cartographer."""

    def __init__(self, distiller: dict[str, Any], cartographer: dict[str, Any]) -> None:
        self._replies = [self._render(distiller, "diagnosis"), self._render(cartographer, None)]
        self.calls = 0

    @staticmethod
    def _render(fields: dict[str, Any], filler: str | None) -> str:
        lines = []
        for key, value in fields.items():
            text = value if isinstance(value, str) else json.dumps(value)
            lines.append(f"{key}: {text}")
        if not lines:
            # Every output field is optional; one line keeps the reply non-empty.
            lines.append(f"{filler}: nothing" if filler else "operations: []")
        return "\n".join(lines)

    def chat(self, request: Any, options: Any = None) -> dict[str, Any]:
        reply = self._replies[self.calls]
        self.calls += 1
        return {"results": [{"index": 0, "content": reply, "finish_reason": "stop"}]}


def axllm_evolve(
    context_map: dict[str, Any], distiller: dict[str, Any], cartographer: dict[str, Any]
) -> tuple[dict[str, Any], int]:
    """(context_map after the update, number of model calls made)."""
    state = {
        "context_map": axllm_restore(copy.deepcopy(context_map)),
        "executor_request": "Answer the question",
        "run_input_values": {"question": "Capital of France?"},
    }
    client = ScriptedMapClient(distiller, cartographer)
    out = _ax._agent_evolve_context_map(state, client, {})
    return out["context_map"], client.calls


def axllm_apply(context_map: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """The tail of `_agent_evolve_context_map` (after the two model calls), step by step."""
    cm = axllm_restore(copy.deepcopy(context_map))
    steps = cm.get("steps", 0)
    if not (cm.get("infiniteEvolve", True) or steps < cm.get("evolveSteps", 0)):
        return cm
    text = _ax._context_map_normalize_text(cm.get("text"))
    item_ids = [item["id"] for item in _ax._context_map_parse_items(text)]
    scores = _ax._context_map_update_scores(cm.get("scores", {}), payload.get("itemTags"), item_ids)
    operations = _ax._context_map_normalize_operations(payload.get("operations"))
    applied = _ax._context_map_apply_operations(text, operations)
    cm["text"] = _ax._context_map_evict_to_budget(applied["text"], scores, cm.get("maxChars", 4000))
    cm["scores"] = scores
    cm["steps"] = steps + 1
    return cm
