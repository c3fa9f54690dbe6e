"""A dialog answerer (`answer_dialogs`) whose fillers were not all used stops with its test:
left polling, it answered a later test's dialog (a New suite saved as "My checks")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ui.evals.test_eval_authoring import _timers


@pytest.fixture(autouse=True)
def _answerers_stop_with_their_test() -> Iterator[None]:
    yield
    for timer in _timers:
        timer.stop()
    _timers.clear()
