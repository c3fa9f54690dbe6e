"""Structure-aware mutation of real files for the fuzz tests: JSON documents are mutated
as trees (hostile values put where real values were) and as text (truncation, bad bytes);
SKILL.md folders get hostile frontmatter, odd file types and odd names; workspaces get
flipped bytes and foreign pragmas. Inputs range from a few bytes to megabytes.

Deterministic for a given `random.Random`, so a failing input is reproduced from its seed."""

from __future__ import annotations

import json
import os
import random
import socket
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

HUGE_DIGITS = "9" * 5000

#: Values a hostile file puts where a real value was.
HOSTILE_VALUES: list[Callable[[random.Random], Any]] = [
    lambda r: None,
    lambda r: True,
    lambda r: -1,
    lambda r: 10**30,
    lambda r: -(2**63),
    lambda r: 1e308,
    lambda r: r.choice(["", "\x00", "\x1b]0;t\x07", "\u202e", "\ud800", "<img src=/dev/zero>"]),
    lambda r: "x" * r.choice([1, 1000, 100_000, 1_200_000]),
    lambda r: [],
    lambda r: {},
    lambda r: [[[[[]]]]],
    lambda r: {"id": "\x1b[2J", "name": "<b>n</b>", "content": "#\n" * 100},
    lambda r: ["a"] * r.choice([2, 1000, 50_000]),
]

#: Whole-text payloads that no structure survives.
RAW_PAYLOADS: list[Callable[[random.Random], bytes]] = [
    lambda r: b"",
    lambda r: b"\xef\xbb\xbf{}",
    lambda r: b"[" * r.choice([300, 5_000, 100_000]) + b"]" * 10,
    lambda r: b'{"a":' * r.choice([300, 50_000]) + b"1" + b"}" * 10,
    lambda r: b"[" + HUGE_DIGITS.encode() + b"]",
    lambda r: b'{"skillsCatalog": [], "n": 1e999999}',
    lambda r: b"NaN",
    lambda r: r.randbytes(r.choice([10, 1000, 200_000])),
    lambda r: b"\x00" * 1000,
    lambda r: b'"' + b"\\" * 10_001 + b'"',
    lambda r: b"\xff\xfe" + "{}".encode("utf-16-le"),
]


def _random_path(r: random.Random, value: Any) -> tuple[Any, ...]:
    """A random place in the tree: a walk down that stops at each level by chance."""
    path: tuple[Any, ...] = ()
    while isinstance(value, dict | list) and value and r.random() < 0.75:
        key = r.choice(list(value)) if isinstance(value, dict) else r.randrange(len(value))
        path = (*path, key)
        value = value[key]
    return path


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def mutate_tree(r: random.Random, value: Any, rounds: int = 3) -> Any:
    """A deep copy of a JSON value with `rounds` hostile edits at random places."""
    value = json.loads(json.dumps(value))
    for _ in range(rounds):
        path = _random_path(r, value)
        if not path:
            value = r.choice(HOSTILE_VALUES)(r)
            continue
        parent = _get(value, path[:-1])
        key = path[-1]
        op = r.random()
        if op < 0.55:
            parent[key] = r.choice(HOSTILE_VALUES)(r)
        elif op < 0.7 and isinstance(parent, dict):
            del parent[key]
        elif op < 0.8 and isinstance(parent, list) and parent:
            parent.append(parent[key])
        elif op < 0.9:
            nested: Any = parent[key]
            for _ in range(r.choice([5, 150, 250])):
                nested = [nested]
            parent[key] = nested
        else:
            parent[key] = str(parent[key])
    return value


def mutate_text(r: random.Random, data: bytes) -> bytes:
    """Text-level damage: truncation, a flipped byte, bad UTF-8, a BOM, a huge number."""
    if not data:
        return r.choice(RAW_PAYLOADS)(r)
    op = r.randrange(7)
    at = r.randrange(len(data))
    if op == 0:
        return data[:at]
    if op == 1:
        return data[:at] + bytes([r.randrange(256)]) + data[at + 1 :]
    if op == 2:
        return data[:at] + b"\xc3\x28\xed\xa0\x80" + data[at:]
    if op == 3:
        return b"\xef\xbb\xbf" + data
    if op == 4:
        return data[:at] + HUGE_DIGITS.encode() + data[at:]
    if op == 5:
        return data * (20 if len(data) < 100_000 else 2)
    return r.choice(RAW_PAYLOADS)(r)


def json_input(r: random.Random, seed_value: Any) -> bytes:
    """One fuzz input derived from a real JSON document."""
    pick = r.random()
    if pick < 0.6:
        text = json.dumps(mutate_tree(r, seed_value, r.choice([1, 2, 4])), ensure_ascii=False)
        return text.encode("utf-8", "surrogatepass")
    if pick < 0.9:
        return mutate_text(r, json.dumps(seed_value, ensure_ascii=False).encode())
    return r.choice(RAW_PAYLOADS)(r)


# --- SKILL.md folders --------------------------------------------------------------

FRONTMATTER_ATTACKS: list[Callable[[random.Random], str]] = [
    lambda r: "description: " + "[" * r.choice([50, 200, 100_000]) + "]" * 10,
    lambda r: "metadata:\n"
    + "".join("  " * i + f"k{i}:\n" for i in range(1, r.choice([5, 70, 200]))),
    lambda r: "m:\n  " + "- " * r.choice([10, 300, 100_000]) + "x",
    lambda r: "n: " + HUGE_DIGITS,
    lambda r: "a: &x [1]\nb: *x",
    lambda r: "name: one\nname: two",
    lambda r: "description: !!python/object:os.system 'true'",
    lambda r: "date: 2024-05-01\nf: .inf",
    lambda r: "description: " + "x" * r.choice([10, 2_000_000]),
    lambda r: "\tname: tab",
    lambda r: "name: <img src=/dev/zero>\ndescription: \x1b]0;t\x07",
]


def skill_folder(r: random.Random, root: Path, seed_text: str, outside: Path) -> Path:
    """A folder of one or two skills built from a real SKILL.md, with hostile parts."""
    folder = root / f"skills-{r.randrange(10**9)}"
    skill = folder / r.choice(["skill", "caf\udce9", "\u202eevil", "a b", "x" * 200])
    try:
        os.makedirs(skill)
    except (OSError, UnicodeEncodeError):
        skill = folder / "skill"
        os.makedirs(skill, exist_ok=True)
    head, sep, body = seed_text.partition("\n---\n")
    text = seed_text
    op = r.random()
    if op < 0.5:
        text = f"{head}\n{r.choice(FRONTMATTER_ATTACKS)(r)}{sep}{body}"
    elif op < 0.7:
        text = mutate_text(r, seed_text.encode()).decode("utf-8", "surrogateescape")
    (skill / "SKILL.md").write_bytes(text.encode("utf-8", "surrogateescape"))
    (skill / "ok.txt").write_text("resource", encoding="utf-8")
    odd = r.randrange(8)
    if odd == 0:
        (skill / "link").symlink_to(outside)
    elif odd == 1:
        os.mkfifo(skill / "pipe")
    elif odd == 2:
        os.link(outside, skill / "hard")
    elif odd == 3:
        (skill / "dev").symlink_to("/dev/zero")
    elif odd == 4:
        (skill / "up").symlink_to("../..")
    elif odd == 5 and len(os.fsencode(skill / "sock")) < 100:  # AF_UNIX path limit
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(skill / "sock"))
    elif odd == 6:
        (skill / "SKILL.md").unlink()
        (skill / "SKILL.md").symlink_to(outside)
    return folder


# --- workspaces --------------------------------------------------------------------


def workspace_input(r: random.Random, seed: bytes, target: Path) -> None:
    """A damaged or foreign copy of a real workspace at `target`."""
    op = r.randrange(6)
    if op == 0:
        data = bytearray(seed)
        for _ in range(r.choice([1, 10, 200])):
            at = r.randrange(len(data))
            data[at] = r.randrange(256)
        target.write_bytes(bytes(data))
    elif op == 1:
        target.write_bytes(seed[: r.randrange(len(seed))])
    elif op == 2:
        target.write_bytes(seed)
        conn = sqlite3.connect(target)
        conn.execute(f"PRAGMA user_version = {r.choice([0, 4, 99, 2**31 - 1])}")
        conn.close()
    elif op == 3:
        target.write_bytes(seed)
        conn = sqlite3.connect(target)
        conn.execute(f"PRAGMA application_id = {r.choice([0, 1, 0x41584D4E])}")
        conn.close()
    elif op == 4:
        target.write_bytes(b"SQLite format 3\x00" + r.randbytes(r.choice([100, 8192])))
    else:
        target.write_bytes(r.choice(RAW_PAYLOADS)(r))
