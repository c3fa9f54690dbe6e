"""Indexing the tail of a big catalog in a real child process (`services/index_worker`):
the live search it gives is the one built in one process, and a child that fails in any
way only means this process indexes those documents itself."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from axmem_gui.core.ax.documents import memory_columns
from axmem_gui.core.ax.profile import load_profile
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.services import live_search
from axmem_gui.services.index_worker import IndexOffload, build_part, worker_command
from axmem_gui.services.live_search import LiveSearch
from tests.helpers.index_state import exact_state
from tests.helpers.index_worker import NEVER_ANSWERS, started_jobs

PROFILE = load_profile()
WORDS = ["release", "deploy", "rollback", "the", "ship", "canary", "vault", "é", "Ünïcode", "2024"]


def _catalog(skills: int, memories: int) -> Catalog:
    def text(i: int, n: int) -> str:
        return " ".join(WORDS[(i * 7 + j * j) % len(WORDS)] for j in range(n)) + f" w{i % 97}"

    return Catalog(
        skills=tuple(
            Skill(f"skill-{i}", f"Skill {i}", text(i, 3), text(i, 2 + i % 9)) for i in range(skills)
        ),
        # repeated words (frequencies above 1), an id that collates like another
        memories=(
            *(Memory(f"mem-{i}", text(i, i % 13) * (1 + i % 3)) for i in range(memories)),
            Memory("MEM-0", "the vault"),
            Memory("mem-0\x01", "ship it"),
        ),
    )


def _state(live: LiveSearch) -> list[dict[str, object]]:
    return [exact_state(live._skills.index), exact_state(live._memories.index)]


def _searches(live: LiveSearch) -> list[object]:
    out: list[object] = []
    for query in ["release deploy", "vault", "ship the canary", "w5 unicode", "mem"]:
        out.append(live.skill_search().discover([query])[0].result_ids)
        out.append([r.ranked for r in live.memory_search().recall([query], [])[0].per_query])
    return out


def test_the_worker_builds_the_part_this_process_would() -> None:
    catalog = _catalog(0, 300)
    columns = memory_columns(catalog.memories, PROFILE).part(120)
    job = IndexOffload(min_chars=0, cpus=2).start(PROFILE, columns, 120)
    part = job.result()
    assert job.error is None
    assert part == build_part(PROFILE, columns, 120)


@pytest.mark.parametrize("biggest", ["memories", "skills"])
def test_a_catalog_indexed_partly_in_a_child_process_is_the_same_index(biggest: str) -> None:
    catalog = _catalog(40, 400) if biggest == "memories" else _catalog(400, 40)
    alone = LiveSearch(PROFILE, catalog)
    shared = LiveSearch(PROFILE, catalog, offload=IndexOffload(min_chars=0, cpus=2))
    away = shared.last_offload
    assert away is not None and away.domain == biggest and not away.fell_back, away
    assert 0 < away.cut < len(getattr(catalog, biggest))
    assert _state(shared) == _state(alone)
    assert _searches(shared) == _searches(alone)
    # and it is patched like the other
    for live in (alone, shared):
        live.patch("memories", {"mem-3": Memory("mem-3", "canary canary vault"), "mem-4": None})
    assert _state(shared) == _state(alone)
    assert _searches(shared) == _searches(alone)


def test_a_small_catalog_or_one_cpu_stays_in_this_process() -> None:
    catalog = _catalog(10, 50)
    assert LiveSearch(PROFILE, catalog, offload=IndexOffload()).last_offload is None
    one_cpu = IndexOffload(min_chars=0, cpus=1)
    assert LiveSearch(PROFILE, catalog, offload=one_cpu).last_offload is None


FAILING = {
    "cannot start": ["/no/such/interpreter"],
    "exits": [sys.executable, "-c", "import sys; print('no luck', file=sys.stderr); sys.exit(3)"],
    "says nothing": [sys.executable, "-c", "import sys; sys.stdin.buffer.read()"],
    "says something else": [
        sys.executable,
        "-c",
        "import sys; sys.stdin.buffer.read(); sys.stdout.buffer.write(b'hello')",
    ],
    "breaks its answer": [
        sys.executable,
        "-c",
        "import sys; sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(b'axmem-index-part-1\\n\\x80')",
    ],
    "answers for other documents": [
        sys.executable,
        "-c",
        "import sys, pickle\n"
        "from axmem_gui.services import index_worker as w\n"
        "profile, columns, first = pickle.load(sys.stdin.buffer)\n"
        "part = w.build_part(profile, columns.part(1), first)\n"
        "sys.stdout.buffer.write(w._MAGIC); w._write_part(part, sys.stdout.buffer)",
    ],
}
ERRORS = {
    "cannot start": "cannot start the index worker",
    "exits": "exited with 3: no luck",
    "says nothing": "answered something else",
    "says something else": "answered something else",
    "breaks its answer": "unreadable part",
    "answers for other documents": "the part of other documents",
}


@pytest.mark.parametrize("how", sorted(FAILING))
def test_a_failing_worker_leaves_the_same_index_built_here(how: str) -> None:
    catalog = _catalog(5, 300)
    offload = IndexOffload(min_chars=0, cpus=2, command=FAILING[how])
    shared = LiveSearch(PROFILE, catalog, offload=offload)
    away = shared.last_offload
    assert away is not None and away.fell_back
    assert away.job.error is not None and ERRORS[how] in away.job.error
    assert _state(shared) == _state(LiveSearch(PROFILE, catalog))


def test_a_worker_that_never_answers_is_stopped_after_the_timeout() -> None:
    offload = IndexOffload(min_chars=0, cpus=2, command=NEVER_ANSWERS, timeout=0.5)
    catalog = _catalog(5, 200)
    shared = LiveSearch(PROFILE, catalog, offload=offload)
    away = shared.last_offload
    assert away is not None and away.fell_back
    assert away.job.error is not None and "stopped" in away.job.error
    assert away.job._process is not None and away.job._process.poll() is not None  # killed
    assert _state(shared) == _state(LiveSearch(PROFILE, catalog))


def test_the_worker_runs_from_any_folder_without_the_folder_on_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder holding a module named like one the worker imports (a downloaded
    workspace's folder, say) changes nothing."""
    (tmp_path / "pickle.py").write_text("raise SystemExit('imported from the folder')")
    monkeypatch.chdir(tmp_path)
    assert worker_command()[1] == "-P"
    catalog = _catalog(0, 200)
    shared = LiveSearch(PROFILE, catalog, offload=IndexOffload(min_chars=0, cpus=2))
    assert shared.last_offload is not None and not shared.last_offload.fell_back
    assert shared.last_offload.job.error is None


def test_the_child_gets_about_its_share_of_all_the_text() -> None:
    offload = IndexOffload(min_chars=1000, cpus=2, share=0.5)
    assert offload.split([10] * 100, 0) == 50
    # the other domain is indexed here: the tail makes up for it
    assert offload.split([10] * 100, 500) == 25
    # more text elsewhere than half of all: the whole domain goes
    assert offload.split([10] * 100, 5000) == 0
    assert offload.split([10] * 10, 0) is None  # under min_chars
    assert IndexOffload(min_chars=0, cpus=1).split([10] * 100, 0) is None
    assert offload.split([], 5000) is None


def test_a_cancelled_load_stops_waiting_for_the_worker_and_stops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A job cancelled (the app quitting, another workspace opened) while the worker is
    stuck: the wait ends at the next check, and the worker is killed."""
    started = started_jobs(monkeypatch)
    offload = IndexOffload(min_chars=0, cpus=2, command=NEVER_ANSWERS)
    calls = 0

    def check() -> None:
        nonlocal calls
        calls += 1
        if calls > 3:
            raise RuntimeError("cancelled")

    with pytest.raises(RuntimeError, match="cancelled"):
        LiveSearch(PROFILE, _catalog(5, 200), offload=offload, check=check)
    (job,) = started
    assert job._process is not None
    job._process.wait()  # killed: it would never end by itself
    assert job._process.returncode != 0


def test_a_worker_far_slower_than_this_process_is_given_up_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker stopped or starved (here: one that never answers) is waited for about
    8 times what this process took for its own part (at least `PART_PATIENCE_S`), not
    the job's whole timeout: then its part is built here."""
    monkeypatch.setattr(live_search, "PART_PATIENCE_S", 0.2)
    offload = IndexOffload(min_chars=0, cpus=2, command=NEVER_ANSWERS)  # (timeout: 600 s)
    catalog = _catalog(5, 200)
    shared = LiveSearch(PROFILE, catalog, offload=offload)
    away = shared.last_offload
    assert away is not None and away.fell_back
    assert away.job.error is not None and "stopped" in away.job.error
    assert exact_state(shared._memories.index) == exact_state(
        LiveSearch(PROFILE, catalog)._memories.index
    )
