"""Every export imports back (issue 25).

Three 10 MB skills exported as ax-json or ts (31.5 MB) were refused on import ("file is
too large (30.0 MiB; the limit is 16 MiB)"); 50,000 skills as a skills folder were refused
("more than 20000 files"). The import now reads what the export writes (files up to
1 GiB, read a few MiB at a time with progress and cancel); a limit that remains is checked
at export time, with the import's own message."""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from axmem_gui.core.catalog import Memory, Skill
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats import CatalogDoc, FormatName, ImportedSkill, read_source
from axmem_gui.core.formats.fileio import ReadLimits
from axmem_gui.core.formats.model import SkillResource
from axmem_gui.services import transfer
from axmem_gui.services.catalog import Write
from axmem_gui.services.transfer import (
    ImportCancelled,
    Progress,
    export_doc,
    export_workspace,
    import_paths,
    read_sources,
)
from axmem_gui.services.workspace import init_workspace

MB = 1_000_000
SUFFIX: dict[FormatName, str] = {"ax-json": ".json", "ts": ".ts", "jsonl": ".jsonl"}


def _big_text(n: int, seed: int) -> str:
    """`n` characters of prose with some non-ASCII (what a long skill looks like)."""
    line = f"Step {seed}: deploy the canary, check the dashboards — ünïcode ✓ then go on.\n"
    return (line * (n // len(line) + 1))[:n]


def _round_trip(
    tmp_path: Path, fmt: FormatName, skills: list[Skill], memories: list[Memory]
) -> tuple[list[Skill], list[Memory]]:
    """Workspace -> export -> import into a fresh workspace: what arrived (a skill as Ax
    sees it: the skills-dir import also keeps the SKILL.md layout in `extra`)."""
    with init_workspace(tmp_path / f"from-{fmt}.axmem") as ws:
        ws.catalog.write_many(
            [("skills", Write(s.id, s, 0)) for s in skills]
            + [("memories", Write(m.id, m, 0)) for m in memories]
        )
        out = tmp_path / (f"export-{fmt}" + SUFFIX.get(fmt, ""))
        export_workspace(ws, fmt, out)
    with init_workspace(tmp_path / f"to-{fmt}.axmem") as ws:
        plan, result = import_paths(ws, [out], fmt=fmt)
        assert plan.ok, [str(e) for e in plan.errors[:3]]
        assert result is not None
        catalog = ws.catalog.snapshot()
        return [replace(s, extra={}) for s in catalog.skills], list(catalog.memories)


@pytest.mark.parametrize("fmt", ["ax-json", "ts", "skills-dir", "jsonl"])
def test_three_ten_megabyte_entries_round_trip_in_every_format(
    tmp_path: Path, fmt: FormatName
) -> None:
    big = [_big_text(10 * MB, i) for i in range(3)]
    if fmt == "jsonl":  # JSON Lines holds memories
        memories = [Memory(f"huge-{i}", text, ("big",)) for i, text in enumerate(big)]
        assert _round_trip(tmp_path, fmt, [], memories) == ([], memories)
        return
    skills = [Skill(f"huge-{i}", f"Huge {i}", "ten megabytes", text) for i, text in enumerate(big)]
    assert _round_trip(tmp_path, fmt, skills, []) == (skills, [])


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["ax-json", "ts", "skills-dir", "jsonl"])
def test_fifty_thousand_entries_round_trip_in_every_format(
    tmp_path: Path, fmt: FormatName
) -> None:
    if fmt == "jsonl":
        memories = [Memory(f"m-{i:05d}", f"fact {i}", (f"t{i % 7}",)) for i in range(50_000)]
        assert _round_trip(tmp_path, fmt, [], memories) == ([], memories)
        return
    skills = [
        Skill(f"s-{i:05d}", f"Skill {i}", f"does thing {i}", f"content {i}") for i in range(50_000)
    ]
    assert _round_trip(tmp_path, fmt, skills, []) == (skills, [])


def test_a_skills_folder_of_more_than_twenty_thousand_files_imports_back(tmp_path: Path) -> None:
    """The representative of the 50,000-skill folder in `make test`: more files than the
    old limit (20,000), written by the export and read back whole."""
    resources = tuple(SkillResource(f"data/r{i:05d}.txt", b"x") for i in range(20_010))
    many = ImportedSkill(Skill("many", "Many files", "", "body"), {}, resources)
    doc = CatalogDoc(skills=(many,))
    out = tmp_path / "skills"
    export_doc(doc, "skills-dir", out)
    read = read_source(out)
    assert read.errors == ()
    assert read.doc.skills[0].resources == resources


def test_a_big_file_is_read_in_bounded_memory_with_progress_and_cancel(tmp_path: Path) -> None:
    text = _big_text(30 * MB, 7)
    source = tmp_path / "big.json"
    body = text.replace("\n", " ")
    source.write_text(f'{{"skills": [{{"id": "big", "name": "Big", "content": "{body}"}}]}}')
    # What the file's text takes in memory (two bytes a character here: it holds ✓).
    in_memory = sys.getsizeof(source.read_text(encoding="utf-8"))
    seen: list[Progress] = []
    tracemalloc.start()
    try:
        [read] = read_sources([source], progress=seen.append)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read.errors == () and len(read.doc.skills[0].skill.content) == len(text)
    # The text, and the entry parsed from it: no other copy of either (nor of the bytes).
    assert peak < 2.2 * in_memory, f"peak {peak / in_memory:.1f}x the text"
    chunks = [p for p in seen if "MiB of" in p.message]
    assert len(chunks) >= 3 and chunks[-1].done == chunks[-1].total

    asked: list[int] = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 2  # after the first chunk

    with pytest.raises(ImportCancelled):
        read_sources([source], cancel=cancel)


def test_a_big_json_lines_file_is_read_line_by_line(tmp_path: Path) -> None:
    source = tmp_path / "m.jsonl"
    with source.open("w", encoding="utf-8") as f:
        for i in range(20_000):
            f.write(f'{{"id": "m{i}", "content": "{_big_text(1000, i).replace(chr(10), " ")}"}}\n')
    tracemalloc.start()
    try:
        read = read_source(source)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert read.errors == () and len(read.doc.memories) == 20_000
    # Little beyond the memories themselves: the file's text was never held whole.
    assert peak - kept < 0.25 * kept, f"{(peak - kept) / kept:.2f} of the entries on top"


def _export_refusal(export: Callable[[], object]) -> str:
    with pytest.raises(InputError) as caught:
        export()
    return str(caught.value)


def test_what_the_import_would_refuse_is_refused_at_export_with_its_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A SKILL.md frontmatter over 1 MiB (a huge description): the real limit.
    huge = Skill("huge", "Huge", "d" * (1024 * 1024 + 10), "body")
    doc = CatalogDoc(skills=(ImportedSkill(huge),))
    message = _export_refusal(lambda: export_doc(doc, "skills-dir", tmp_path / "out"))
    assert not (tmp_path / "out").exists()
    folder = tmp_path / "by-hand" / "huge"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: Huge\ndescription: {huge.description}\n---\nbody\n", encoding="utf-8"
    )
    [problem] = read_source(folder).errors
    assert problem.message in message and "frontmatter: too large" in message

    # Sizes and counts, with the limits made small (the same code checks the real ones).
    small = ReadLimits(max_file_bytes=2048, max_total_bytes=4096, max_files=3)
    monkeypatch.setattr(transfer, "ReadLimits", lambda: small)
    doc = CatalogDoc(skills=(ImportedSkill(Skill("s", "S", "", "x" * 3000)),))
    message = _export_refusal(lambda: export_doc(doc, "ax-json", tmp_path / "c.json"))
    (tmp_path / "same.json").write_text(
        '{"skills": [{"id": "s", "name": "S", "content": "' + "x" * 3000 + '"}]}'
    )
    [problem] = read_source(tmp_path / "same.json", limits=small).errors
    assert problem.message.split(" (")[0] in message and "the limit is 2 KiB" in message
    assert not (tmp_path / "c.json").exists()
    many = tuple(ImportedSkill(Skill(f"s{i}", "S", "", "x")) for i in range(4))
    folder = tmp_path / "d"
    message = _export_refusal(lambda: export_doc(CatalogDoc(skills=many), "skills-dir", folder))
    assert "more than 3 files under this path" in message and not folder.exists()
