"""Read-only views over a session shared by diff, what-if and the GUI timeline."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from axmem_gui.core.session.model import Exchange, Session


@dataclass(frozen=True)
class CallKey:
    """Where a model call sits in a run: forward, stage, turn within the stage, and the
    repeat number for calls sharing a turn (llmQuery sub-calls, retries)."""

    forward: int
    stage: str
    turn: int
    repeat: int = 0

    def label(self) -> str:
        extra = f".{self.repeat}" if self.repeat else ""
        return f"forward {self.forward + 1} · {self.stage} · turn {self.turn + 1}{extra}"


def call_keys(session: Session) -> Iterator[tuple[CallKey, Exchange]]:
    seen: dict[tuple[int, str, int], int] = {}
    for ex in session.exchanges:
        base = (ex.forward, ex.stage, ex.turn)
        repeat = seen.get(base, 0)
        seen[base] = repeat + 1
        yield CallKey(*base, repeat=repeat), ex
