"""Catalog entries are small: slotted, and entries without extra keys share one empty
mapping (a workspace of 100,000 memories keeps them all in memory)."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from axmem_gui.core.catalog import NO_EXTRA, Memory, Skill
from axmem_gui.services.workspace import init_workspace
from tests.helpers.store import raw


@pytest.mark.parametrize(
    "entry",
    [Skill("s", "S", "d", "c", ("t",)), Memory("m", "c", ("t",))],
    ids=["skill", "memory"],
)
def test_entries_have_no_instance_dict(entry: Skill | Memory) -> None:
    assert not hasattr(entry, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.id = "other"  # type: ignore[misc]


def test_entry_semantics_survive_slots() -> None:
    skill = Skill("s", "S", "d", "c", ("t",))
    assert skill == Skill("s", "S", "d", "c", ("t",))
    assert hash(skill) == hash(Skill("s", "S", "d", "c", ("t",)))
    assert skill != Skill("s", "S", "d", "c", ("t",), extra={"license": "MIT"})
    assert Skill("s", "S", extra={}) == Skill("s", "S")
    assert dataclasses.replace(skill, name="T") == Skill("s", "T", "d", "c", ("t",))
    # a memory's extra keys and key order are not part of its identity
    memory = Memory("m", "c", extra={"metadata": {"a": 1}}, key_order=("content", "id"))
    assert memory == Memory("m", "c")
    assert hash(memory) == hash(Memory("m", "c"))
    assert memory.to_payload() == {"content": "c", "id": "m", "metadata": {"a": 1}}
    assert list(memory.to_payload()) == ["content", "id", "metadata"]
    for entry in (skill, memory, Skill("x", "X"), Memory("y", "")):
        copy = pickle.loads(pickle.dumps(entry))
        assert copy == entry and copy.extra == entry.extra
    assert pickle.loads(pickle.dumps(Memory("y", ""))).extra is NO_EXTRA


def test_empty_extra_is_one_shared_read_only_mapping() -> None:
    assert Skill("a", "A").extra is Skill("b", "B").extra is Memory("m", "").extra
    assert {} == NO_EXTRA  # noqa: SIM300 (the dict on the left: the reflected comparison)
    assert NO_EXTRA.__eq__({}) is True
    assert len(NO_EXTRA) == 0
    assert dict(NO_EXTRA) == {} and {**NO_EXTRA} == {} and repr(NO_EXTRA) == "{}"
    assert not hasattr(NO_EXTRA, "__setitem__")


def test_stored_entries_without_extra_share_it(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "w.axmem", sample=False)
    with raw(ws).transaction():
        for i in range(3):
            raw(ws).skills.upsert(Skill(f"s{i}", f"S{i}"))
            raw(ws).memories.upsert(Memory(f"m{i}", f"c{i}"))
        raw(ws).skills.upsert(Skill("x", "X", extra={"license": "MIT"}))
    catalog = raw(ws).catalog()
    entries: list[Skill | Memory] = [*catalog.skills, *catalog.memories]
    plain = [e for e in entries if e.id != "x"]
    assert len(plain) == 6 and all(e.extra is NO_EXTRA for e in plain)
    assert catalog.skill("x") == Skill("x", "X", extra={"license": "MIT"})
    assert raw(ws).skills.get("s1") == Skill("s1", "S1")
    ws.close()
