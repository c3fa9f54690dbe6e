"""Where axllm 25.4.6 departs from @ax-llm/ax 24.0.21 in a way that breaks a run, the
studio makes it behave as Ax does (docs/design.md, "axllm port defects").

Only one today: a `recall(...)` that loads nothing fails the next actor turn.
axllm's runtime globals alias the forward's input values (`globals["inputs"] = values`),
so after a recall `inputs.memories = loaded_memories` also lands in the values the next
actor prompt is built from. The distiller and executor value builders then put the
rendered memories text over it, but only when some memory is loaded: with none, the
list stays in the optional string field `memories` and axllm refuses the turn
("Validation failed: Expected 'memories' to be a string"). Ax TS renders an array
`memories` to text and deletes it when that text is empty (its actor values builder), so
the turn goes on without a Memories field. The fix deletes a list `memories` that
axllm's builders left in the values, as Ax does. Values (and prompts) axllm could build
before are unchanged, key order included: there the text had replaced the list.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_MARK = "_axmem_memories_fix"
#: The two actor value builders of axllm.agent: (state, non_ctx, context, ...) -> values.
_BUILDERS = ("_agent_rlm_distiller_values", "_agent_rlm_executor_values")


def install_memories_fix() -> bool:
    """Patch axllm.agent once per process; False when its builders are not there (another
    axllm version), which leaves axllm as it is."""
    module = importlib.import_module("axllm.agent")
    if getattr(module, _MARK, False):
        return True
    originals: list[Callable[..., Any]] = []
    for name in _BUILDERS:
        original = getattr(module, name, None)
        if not callable(original):
            return False
        originals.append(original)
    for name, original in zip(_BUILDERS, originals, strict=True):
        setattr(module, name, _without_memories_list(original))
    setattr(module, _MARK, True)
    return True


def _without_memories_list(builder: Callable[..., Any]) -> Callable[..., Any]:
    def build(*args: Any) -> Any:
        values = builder(*args)
        # Afterwards, not before: a loaded text replaces the list where it stands, so the
        # values keep their order (the recorded trace shows it).
        if isinstance(values, dict) and isinstance(values.get("memories"), list):
            del values["memories"]
        return values

    build.__wrapped__ = builder  # type: ignore[attr-defined]
    return build
