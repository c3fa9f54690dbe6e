"""Record your own axllm agents into `.axsession.json` files and replay them in your tests.

The public API of the studio for agents built in the app's own Python code (the TypeScript
counterpart is the `@axmem/ax-recorder` package in recorders/ax-ts):

- `SessionRecorder`: wrap the app's axllm client and agent; every model call, function tool
  call, discover/recall search, observer callback and the context map are recorded in the
  studio's session format (`origin.kind: "app"`), with the same digests and derived fields
  as the studio's own runs. Recording never breaks the agent (failures are warnings).
- `SessionReplayer`: serve a recording back offline in a test; the first request that
  differs raises `SessionMismatch` (an AssertionError) naming the call, with a diff.
- The pytest fixture `axsession_replay` (`axmem_gui.recorder.pytest_plugin`, loaded by
  pytest automatically when axmem-gui is installed).

Nothing here imports Qt. See docs/recorders.md.
"""

from __future__ import annotations

from axmem_gui.recorder.document import RECORDER_NAME
from axmem_gui.recorder.recording import (
    RecorderLimits,
    SaveResult,
    SessionRecorder,
    environment_secrets,
)
from axmem_gui.recorder.replaying import SessionMismatch, SessionReplayer

__all__ = [
    "RECORDER_NAME",
    "RecorderLimits",
    "SaveResult",
    "SessionMismatch",
    "SessionRecorder",
    "SessionReplayer",
    "environment_secrets",
]
