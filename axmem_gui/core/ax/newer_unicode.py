"""Node's ICU where it is newer than the wheel's: lower-casing, NFKD and the classes they
depend on, for the characters of a newer Unicode.

Node 20.20 runs ICU 78 (Unicode 17); pyicu-wheels ships ICU 77 (Unicode 16). ICU 77 leaves
the new capitals as they are (U+A7CE, Beria Erfe), does not decompose U+A7F1, takes the new
combining marks for starters (so NFKD does not reorder them) and does not count the new
letters as cased (the context of a final sigma). `make golden` records Node's answers for
exactly those characters (`profiles/text-icu-<version>.json`, tools/ax_profile/text_data.py);
this module applies them on top of the wheel's ICU, so `toLowerCase` and `normalize('NFKD')`
give Node's results on every text. A text without such a character never comes here.
Collation: Unicode 17 moved some Han and Tangut characters both ICUs know; the file's
tailoring rules put them at Node's places. The characters new in Unicode 17 stay unknown to
the wheel's collator (docs/ax-text.md says why).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from itertools import groupby
from typing import Any

_SIGMA = "\u03a3"


def _chars(codes: Any) -> frozenset[str]:
    return frozenset(chr(int(code, 16)) for code in codes)


def _class_of(chars: frozenset[str]) -> re.Pattern[str]:
    return re.compile("[" + "".join(map(re.escape, sorted(chars))) + "]")


@dataclass(frozen=True)
class NewerText:
    """The differences of one newer ICU (see the module docstring)."""

    icu_version: tuple[int, ...]
    lower_map: dict[int, str]
    nfkd_map: dict[int, str]
    ccc: dict[str, int]
    cased_toggled: frozenset[str]
    ignorable_toggled: frozenset[str]
    lower_trigger: re.Pattern[str]
    nfkd_trigger: re.Pattern[str]
    #: ICU tailoring rules that move the characters both ICUs know to Node's places.
    collation_rules: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NewerText:
        lower = {int(k, 16): v for k, v in data["lower"].items()}
        nfkd = {int(k, 16): v for k, v in data["nfkd"].items()}
        ccc = {chr(int(k, 16)): int(v) for k, v in data["ccc"].items()}
        cased = _chars(data["casedToggled"])
        ignorable = _chars(data["caseIgnorableToggled"])
        lower_chars = frozenset(map(chr, lower)) | cased | ignorable
        nfkd_chars = frozenset(map(chr, nfkd)) | frozenset(ccc)
        return cls(
            tuple(int(p) for p in str(data["icu"]).split(".")),
            lower,
            nfkd,
            ccc,
            cased,
            ignorable,
            _class_of(lower_chars),
            _class_of(nfkd_chars),
            str(data.get("collationRules", "")),
        )

    # ------------------------------------------------------------------ toLowerCase

    def lower(
        self, text: str, base: Callable[[str], str], props: Callable[[str], tuple[bool, bool]]
    ) -> str:
        """`text.toLowerCase()`: Node's mappings of the new characters first, then the
        wheel's (`base`) on the rest. A capital sigma's final form depends on its cased
        neighbours, some of them new: each sigma is decided here (ICU's own rule, with
        `props(ch)` = the wheel's (cased, case-ignorable) corrected by Node's), and the
        pieces between sigmas are lowered on their own (the root locale has no other
        context-dependent mapping)."""
        if _SIGMA not in text:
            return base(text.translate(self.lower_map))
        pieces = text.split(_SIGMA)
        out = [base(pieces[0].translate(self.lower_map))]
        at = len(pieces[0])
        for piece in pieces[1:]:
            final = self._preceded_by_cased(text, at, props) and not self._followed_by_cased(
                text, at, props
            )
            out.append("\u03c2" if final else "\u03c3")
            out.append(base(piece.translate(self.lower_map)))
            at += 1 + len(piece)
        return "".join(out)

    def props(self, ch: str, cased: bool, ignorable: bool) -> tuple[bool, bool]:
        return cased != (ch in self.cased_toggled), ignorable != (ch in self.ignorable_toggled)

    @staticmethod
    def _preceded_by_cased(text: str, at: int, props: Callable[[str], tuple[bool, bool]]) -> bool:
        for ch in reversed(text[:at]):
            cased, ignorable = props(ch)
            if not ignorable:  # ICU: a case-ignorable character is skipped, even if cased
                return cased
        return False

    @staticmethod
    def _followed_by_cased(text: str, at: int, props: Callable[[str], tuple[bool, bool]]) -> bool:
        for ch in text[at + 1 :]:
            cased, ignorable = props(ch)
            if not ignorable:
                return cased
        return False

    # ------------------------------------------------------------------ NFKD

    def nfkd(self, text: str, base: Callable[[str], str], ccc: Callable[[str], int]) -> str:
        """`text.normalize('NFKD')`: the wheel's decomposition (`base`), Node's for the new
        characters, then canonical order again with the new marks' classes (the wheel took
        them for starters, so it left them where they were)."""
        decomposed = base(text).translate(self.nfkd_map)
        if not any(ch in self.ccc for ch in decomposed):
            return decomposed

        def combining_class(ch: str) -> int:
            return self.ccc[ch] if ch in self.ccc else ccc(ch)

        out: list[str] = []
        for is_mark, run in groupby(decomposed, key=lambda ch: combining_class(ch) > 0):
            chars = list(run)
            out.extend(sorted(chars, key=combining_class) if is_mark else chars)
        return "".join(out)


@lru_cache(maxsize=1)
def newer_text(wheel_icu: str) -> NewerText | None:
    """The newest recorded ICU's differences, when it is newer than `wheel_icu`."""
    folder = resources.files("axmem_gui.core.ax").joinpath("profiles")
    found = [
        NewerText.from_json(json.loads(p.read_text(encoding="utf-8")))
        for p in folder.iterdir()
        if p.name.startswith("text-icu-") and p.name.endswith(".json")
    ]
    wheel = tuple(int(p) for p in wheel_icu.split("."))
    newer = [t for t in found if t.icu_version[: len(wheel)] > wheel]
    return max(newer, key=lambda t: t.icu_version) if newer else None
