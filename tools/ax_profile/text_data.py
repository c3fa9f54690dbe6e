#!/usr/bin/env python3
"""Write `axmem_gui/core/ax/profiles/text-icu-<version>.json`: where the reference
runtime's ICU (Node's) lower-cases, decomposes or classifies a character otherwise than
the ICU inside the pyicu-wheels wheel, what Node's does (`make golden`).

    node tools/golden/node_text.mjs > build/node-text.json
    python -m tools.ax_profile.text_data build/node-text.json

Only the differences are kept (the characters of a newer Unicode than the wheel's): a
lowercase or NFKD mapping, a canonical combining class, membership of Cased and
Case_Ignorable (the Final_Sigma context), and collation tailoring rules that move the
characters both ICUs know to Node's places (checked here: every such character in Node's
order, at Node's levels). `core/ax/icutext.py` applies them when the wheel's ICU is older
than the file's.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
from pathlib import Path
from typing import Any

import icu

REPO_ROOT = Path(__file__).resolve().parents[2]
PROFILES_DIR = REPO_ROOT / "axmem_gui" / "core" / "ax" / "profiles"


def _hex(cp: int) -> str:
    return f"{cp:04X}"


def _wheel_lower(ch: str) -> str:
    return str(icu.CaseMap.toLower(icu.Locale.getRoot(), ch))


def _wheel_nfkd(ch: str) -> str:
    return str(icu.Normalizer2.getNFKDInstance().normalize(ch))


def _wheel_nfd(ch: str) -> str:
    return str(icu.Normalizer2.getNFDInstance().normalize(ch))


def _has(cp: int, prop: Any) -> bool:
    return bool(icu.Char.hasBinaryProperty(cp, prop))


def differences(node: dict[str, Any]) -> dict[str, Any]:
    lower: dict[str, str] = {}
    nfkd: dict[str, str] = {}
    ccc: dict[str, int] = {}
    node_lower = {int(k): v for k, v in node["lower"].items()}
    node_nfkd = {int(k): v for k, v in node["nfkd"].items()}
    node_ccc = {int(k): v for k, v in node["ccc"].items()}
    node_cased = set(node["cased"])
    node_ignorable = set(node["caseIgnorable"])
    cased: list[str] = []
    ignorable: list[str] = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        want = node_lower.get(cp, ch)
        if _wheel_lower(ch) != want:
            lower[_hex(cp)] = want
        want = node_nfkd.get(cp, ch)
        if _wheel_nfkd(ch) != want:
            nfkd[_hex(cp)] = want
        # (a character that decomposes never keeps its own class through NFKD)
        if _wheel_nfd(ch) == ch and icu.Char.getCombiningClass(cp) != node_ccc.get(cp, 0):
            ccc[_hex(cp)] = node_ccc.get(cp, 0)
        if _has(cp, icu.UProperty.CASED) != (cp in node_cased):
            cased.append(_hex(cp))
        if _has(cp, icu.UProperty.CASE_IGNORABLE) != (cp in node_ignorable):
            ignorable.append(_hex(cp))
    return {
        "lower": lower,
        "nfkd": nfkd,
        "ccc": ccc,
        "casedToggled": cased,
        "caseIgnorableToggled": ignorable,
    }


def _collator(rules: str | None = None) -> Any:
    collator = (
        icu.RuleBasedCollator(rules) if rules else icu.Collator.createInstance(icu.Locale("en-US"))
    )
    collator.setAttribute(icu.UCollAttribute.NORMALIZATION_MODE, icu.UCollAttributeValue.ON)
    return collator


def _levels(collator: Any, chars: list[str]) -> list[int]:
    """The level at which each character first differs from the one before (1-4)."""
    keys = []
    for strength in (icu.Collator.PRIMARY, icu.Collator.SECONDARY, icu.Collator.TERTIARY):
        collator.setStrength(strength)
        keys.append([collator.getSortKey(ch) for ch in chars])
    collator.setStrength(icu.Collator.TERTIARY)
    out = [1]
    for i in range(1, len(chars)):
        out.append(next((n + 1 for n in range(3) if keys[n][i - 1] != keys[n][i]), 4))
    return out


def collation(node: dict[str, Any]) -> dict[str, Any]:
    """Tailoring rules that put the characters both ICUs know where Node's collator has
    them (Unicode 17 moved some Han and Tangut in radical-stroke order), and the
    characters the wheel does not know at all (left to the residual list: rules for
    thousands of characters cannot be built in ICU 77 in any usable time)."""
    chars = [chr(cp) for cp, _level in node["order"]]
    new = [ch for ch in chars if icu.Char.charType(ord(ch)) == icu.UCharCategory.UNASSIGNED]
    unknown = set(new)
    # Node's level between consecutive known characters: the weakest on the way
    known: list[str] = []
    node_levels: list[int] = []
    level = 1
    for (_cp, step), ch in zip(node["order"], chars, strict=True):
        level = min(level, step) if known else 1
        if ch in unknown:
            continue
        known.append(ch)
        node_levels.append(level)
        level = 4
    keys = [_collator().getSortKey(ch) for ch in known]
    # the fewest characters to move: all but a longest run already in order
    tails: list[bytes] = []
    tail_at: list[int] = []
    back = [-1] * len(keys)
    for i, key in enumerate(keys):
        j = bisect.bisect_right(tails, key)
        if j == len(tails):
            tails.append(key)
            tail_at.append(i)
        else:
            tails[j], tail_at[j] = key, i
        back[i] = tail_at[j - 1] if j else -1
    kept = set()
    at = tail_at[-1] if tail_at else -1
    while at >= 0:
        kept.add(at)
        at = back[at]
    nfd = icu.Normalizer2.getNFDInstance()
    relation = {1: "<", 2: "<<", 3: "<<<", 4: "="}
    rules: list[str] = []
    anchor = ""
    for i, ch in enumerate(known):
        decomposes = str(nfd.normalize(ch)) != ch  # follows its decomposition anyway
        if i in kept or decomposes:
            if i in kept and not decomposes:
                anchor = ch
            continue
        if not anchor:
            raise SystemExit(f"U+{ord(ch):04X}: moved before every character it could follow")
        # (characters as they are: ICU 77's rule parser does not take \U escapes here)
        rules.append(f"&{anchor} {relation[node_levels[i]]} {ch}")
        anchor = ch
    text = "\n".join(rules)
    tailored = _collator(text)
    got_keys = [tailored.getSortKey(ch) for ch in known]
    if any(got_keys[i - 1] > got_keys[i] for i in range(1, len(known))):
        raise SystemExit("the tailoring does not reproduce Node's order")
    if _levels(tailored, known) != node_levels:
        raise SystemExit("the tailoring does not reproduce Node's levels")
    return {"collationRules": text, "collationUnknown": [_hex(ord(ch)) for ch in new]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("node_text", type=Path, help="the output of tools/golden/node_text.mjs")
    parser.add_argument("--out-dir", type=Path, default=PROFILES_DIR)
    args = parser.parse_args(argv)
    node = json.loads(args.node_text.read_text(encoding="utf-8"))
    data = {
        "about": (
            f"Where Node {node['node']}'s ICU {node['icu']} (Unicode {node['unicode']}) "
            f"lower-cases, decomposes (NFKD) or classifies a character otherwise than ICU "
            f"{icu.ICU_VERSION} (Unicode {icu.UNICODE_VERSION}) of pyicu-wheels: Node's "
            "answers. Generated by `make golden` (tools/golden/node_text.mjs, "
            "tools/ax_profile/text_data.py); read by axmem_gui/core/ax/icutext.py. "
            "casedToggled / caseIgnorableToggled: code points whose Cased / Case_Ignorable "
            "property Node's ICU has and the wheel's has not, or the reverse."
        ),
        "icu": node["icu"],
        "unicode": node["unicode"],
        "wheelIcu": str(icu.ICU_VERSION),
        **differences(node),
        **collation(node),
    }
    out = args.out_dir / f"text-icu-{node['icu']}.json"
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    counts = {k: len(v) for k, v in data.items() if isinstance(v, dict | list)}
    print(f"{out}: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
