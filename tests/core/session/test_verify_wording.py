"""Verify's sentences agree with their numbers and subjects: it said "1 searches give" and
"the context-map snapshots does not match"."""

from __future__ import annotations

from axmem_gui.core.session.verify import VerifyReport, derived


def test_one_search_is_one_search() -> None:
    one = VerifyReport(session_id="s", differences=(), calls=1, searches=1, duration_ms=1.0)
    assert "1 search gives the recorded results" in one.render()
    two = VerifyReport(session_id="s", differences=(), calls=1, searches=2, duration_ms=1.0)
    assert "2 searches give the recorded results" in two.render()


def test_a_plural_subject_reads_right() -> None:
    found = derived("contextMapSnapshots", [1], [2], "the context-map snapshots")
    assert found is not None
    assert (
        found.message
        == "the context-map snapshots: the stored value is not what it is derived from"
    )
    assert "does not match" not in found.message
