"""pytest fixture for replaying recorded sessions in the app's own tests.

```python
def test_support_agent(axsession_replay):
    player = axsession_replay("sessions/support.axsession.json", functions=["lookupOwner"])
    support = player.agent("question:string -> answer:string", support_options())
    assert support.forward(player.client(), player.inputs(0)) == player.output(0)
```

At the end of the test every replayer it made must have used all its recorded model calls
(`assert_complete`), so a test cannot pass on half a recording.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from axmem_gui.recorder.replaying import SessionReplayer

Replay = Callable[..., SessionReplayer]


@pytest.fixture
def axsession_replay() -> Iterator[Replay]:
    made: list[SessionReplayer] = []

    def replay(path: str | Path, **options: Any) -> SessionReplayer:
        player = SessionReplayer.load(path, **options)
        made.append(player)
        return player

    yield replay
    for player in made:
        if player.mismatch is None:  # a mismatch already failed the test where it happened
            player.assert_complete()
