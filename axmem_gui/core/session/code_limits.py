"""Limits on the model's code in a run (engine.cage enforces them), as a session records
them, and where a limit stopped the code.

A session file that names no limits ran under the defaults (they are part of axsession
version 1); the recorder writes `code_limits` only when a run used others, and
`code_limits_hit` on a forward only when a limit stopped its code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from axmem_gui.core.errors import InputError
from axmem_gui.core.records import Record


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeLimits(Record):
    """Limits on the model's code in one run. The defaults leave room for any code an agent
    needs to write; the bounds keep a file from asking for no limit at all (a recorded
    session is read as written: `problem()` says what is out of bounds)."""

    time_s: float = 5.0  # CPU time of one execution
    memory_mib: int = 256  # the QuickJS runtime's heap, all its globals included
    stack_kib: int = 1024  # the JavaScript call stack (QuickJS's default is 256)
    code_kib: int = 64  # the source of one execution

    BOUNDS: ClassVar[dict[str, tuple[float, float]]] = {
        "time_s": (0.01, 600.0),
        "memory_mib": (16, 4096),
        # below the 8 MiB thread stack the code runs on, with room for the native frames
        "stack_kib": (64, 4096),
        "code_kib": (1, 4096),
    }

    @property
    def is_default(self) -> bool:
        return (self.time_s, self.memory_mib, self.stack_kib, self.code_kib) == (
            5.0,
            256,
            1024,
            64,
        )

    def problem(self) -> str | None:
        """What is outside the bounds, or None."""
        for name, (low, high) in self.BOUNDS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                return f"{name} must be a number"
            if not low <= value <= high:
                return f"{name} must be between {low:g} and {high:g}, got {value!r}"
        return None

    def checked(self, source: str = "code limits") -> CodeLimits:
        """These limits, or InputError naming `source` and what is out of bounds."""
        problem = self.problem()
        if problem:
            raise InputError(f"{source}: {problem}")
        return self

    def message(self, kind: str, detail: str = "") -> str:
        """The error the model's code fails with when it passes limit `kind`."""
        if kind == "time":
            return f"Error: Execution timed out (limit: {self.time_s:g} s of CPU time)"
        if kind == "memory":
            return f"InternalError: out of memory (limit: {self.memory_mib} MiB)"
        if kind == "code_size":
            return (
                f"Error: Code too large ({detail} bytes; limit: {self.code_kib} KiB per "
                "execution); it was not run"
            )
        return f"Error: the code was stopped ({kind})"


@dataclass(frozen=True, slots=True, kw_only=True)
class LimitHit(Record):
    """Where a limit stopped the model's code (`forwards[i].code_limits_hit[j]`): which
    limit, what the model was told, and the call whose reply held the code."""

    kind: str  # time | memory | code_size
    message: str
    forward: int | None = None
    stage: str | None = None
    turn: int | None = None
    call_index: int | None = None

    def render(self) -> str:
        where = f"forward {self.forward}" + (
            f", code of call #{self.call_index}" if self.call_index is not None else ""
        )
        return f"model code stopped by a limit ({where}): {self.message}"
