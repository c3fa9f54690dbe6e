"""Unicode the way Node's V8 sees it: ICU for collation, case mapping and normalization.

Ax runs on Node, whose `localeCompare`, `toLowerCase` and `normalize('NFKD')` are ICU's
(Node 20: ICU 78, Unicode 17). Python's own tables (`str.lower`, `unicodedata`) lag behind
(Unicode 14 on Python 3.11) and pyuca's DUCET is Unicode 9, so the engine asks ICU itself,
through `pyicu-wheels` (import name `icu`), which ships ICU inside its wheels (ICU 77.1 /
Unicode 16 in 2.15; see docs/ax-text.md for the platforms and the few characters ICU 77
and Node's ICU 78 still disagree on).

Without a wheel for the platform (`import icu` fails) the engine falls back to pyuca
(DUCET, Unicode 9) and Python's `unicodedata`/`str.lower`: ASCII and older Unicode give
the same answers, newer characters may not. `text_engine()` says which one is in use;
`axmem --version` and the About dialog show it.

Every function here accepts lone surrogates (JavaScript strings may hold them, and so may
Python `str`) and gives ICU exactly the UTF-16 code units JavaScript would: PyICU copies a
`str` of BMP code points unit for unit, but converts one holding an astral character
through UTF-32, which turns every lone surrogate into U+FFFD (`"😀\\ud83d"` arrived as
`d83d de00 fffd`), and it refuses to convert such a result back. So a text holding a
surrogate goes to ICU as a `str` of its UTF-16 code units (`_utf16_units`: every code
point below U+10000, PyICU's exact copy) and comes back unit by unit (`_from_units`).
"""

from __future__ import annotations

import re
import struct
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from axmem_gui.core.ax.newer_unicode import NewerText, newer_text

#: The collation locale Ax's `localeCompare` runs under in the reference (golden) runs.
COLLATION_LOCALE = "en-US"

def _import_icu() -> Any:
    try:
        import icu
    except ImportError:  # pragma: no cover - platforms without a pyicu-wheels wheel
        return None
    return icu


_icu: Any = _import_icu()


@dataclass(frozen=True)
class TextEngine:
    """Which Unicode implementation the engine uses, for version reports."""

    name: str  # "ICU" or "Python"
    icu_version: str | None
    unicode_version: str
    collation: str

    def describe(self) -> str:
        if self.icu_version is not None:
            return f"ICU {self.icu_version} (Unicode {self.unicode_version})"
        return (
            f"no ICU: fallback to {self.collation} and Python's Unicode "
            f"{self.unicode_version} tables"
        )


@lru_cache(maxsize=1)
def text_engine() -> TextEngine:
    if _icu is not None:
        return TextEngine(
            "ICU", str(_icu.ICU_VERSION), str(_icu.UNICODE_VERSION), f"ICU {COLLATION_LOCALE}"
        )
    return TextEngine("Python", None, unicodedata.unidata_version, "pyuca DUCET")


def icu_available() -> bool:
    return _icu is not None


# ------------------------------------------------------------------ UTF-16 to ICU and back

#: A surrogate code point: lone in a canonical `str` (json.loads, slices), or half of a
#: pair spelled as two code points.
_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def has_surrogate(text: str) -> bool:
    """Whether `text` holds a surrogate code point (only then does PyICU mangle it)."""
    return _SURROGATE.search(text) is not None


def _pair(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def _utf16_units(text: str) -> str:
    """`text` as one code point per UTF-16 code unit (astral characters as their
    surrogate pairs): PyICU copies such a `str` into ICU unit for unit."""
    return _ASTRAL.sub(_pair, text)


def js_canonical(text: str) -> str:
    """The Python spelling of the JavaScript string whose code units `text` spells: a
    high surrogate followed by a low one is the astral character they encode (JavaScript
    cannot tell them apart), lone surrogates stay."""
    if not has_surrogate(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _from_units(value: Any) -> str:
    """An ICU UnicodeString as the canonical `str` of its code units."""
    units = "".join(value[i] for i in range(value.length()))
    return js_canonical(units)


# ------------------------------------------------------------------ collation keys


@lru_cache(maxsize=1)
def _icu_collator_key() -> Callable[[str], bytes]:
    newer = _newer()
    if newer is not None and newer.collation_rules:
        # en-US is the root collation: root plus Node's places for the moved characters
        collator = _icu.RuleBasedCollator(newer.collation_rules)
    else:
        collator = _icu.Collator.createInstance(_icu.Locale(COLLATION_LOCALE))
    # JavaScript's Intl defaults for localeCompare (and ICU's for the locale): tertiary
    # strength, non-ignorable punctuation. V8 switches normalization on (ECMA-402 wants
    # canonically equivalent strings to compare equal): `a\u0301\u0323` sorts as its
    # normalized form, after `Å`, and shadda+fatha in either order compare 0.
    collator.setAttribute(_icu.UCollAttribute.NORMALIZATION_MODE, _icu.UCollAttributeValue.ON)
    key: Callable[[str], bytes] = collator.getSortKey
    return key


def _icu_sort_key(text: str) -> bytes:
    key = _icu_collator_key()
    return key(_utf16_units(text)) if _SURROGATE.search(text) else key(text)


@lru_cache(maxsize=1)
def _pyuca_sort_key() -> Callable[[str], bytes]:  # pragma: no cover - fallback only
    import pyuca

    collator = pyuca.Collator()

    def key(text: str) -> bytes:
        weights = collator.sort_key(text)
        return struct.pack(f">{len(weights)}H", *weights)

    return key


def sort_key_function() -> Callable[[str], bytes]:
    """A function text -> bytes whose byte order is `localeCompare` (en-US) order."""
    if _icu is not None:
        return _icu_sort_key
    return _pyuca_sort_key()  # pragma: no cover - fallback only


def sort_keys_of(texts: Sequence[str]) -> list[bytes]:
    """`sort_key_function()` of each text; one C call per text when none holds a
    surrogate (one search over them all says so)."""
    if _icu is None:  # pragma: no cover - fallback only
        return list(map(_pyuca_sort_key(), texts))
    if _SURROGATE.search("".join(texts)) is None:
        return list(map(_icu_collator_key(), texts))
    return list(map(_icu_sort_key, texts))


# ------------------------------------------------------------------ case and normalization


@lru_cache(maxsize=1)
def _icu_root() -> Any:
    return _icu.Locale.getRoot()


def _newer() -> NewerText | None:
    return newer_text(str(_icu.ICU_VERSION)) if _icu is not None else None


def js_lower(text: str) -> str:
    """`text.toLowerCase()`: full, locale-independent mappings (Final_Sigma included)."""
    if text.isascii():
        return text.lower()
    if _icu is None:  # pragma: no cover - fallback only
        return text.lower()
    newer = _newer()
    if newer is not None and newer.lower_trigger.search(text):
        return newer.lower(text, _icu_lower, _case_props)
    return _icu_lower(text)


def _icu_lower(text: str) -> str:
    if _SURROGATE.search(text):
        units = _icu.UnicodeString(_utf16_units(text))
        return _from_units(units.toLower(_icu_root()))
    return str(_icu.CaseMap.toLower(_icu_root(), text))


def _case_props(ch: str) -> tuple[bool, bool]:
    """(Cased, Case_Ignorable) of one code point as Node's ICU has them."""
    code = ord(ch)
    cased = bool(_icu.Char.hasBinaryProperty(code, _icu.UProperty.CASED))
    ignorable = bool(_icu.Char.hasBinaryProperty(code, _icu.UProperty.CASE_IGNORABLE))
    newer = _newer()
    return newer.props(ch, cased, ignorable) if newer is not None else (cased, ignorable)


@lru_cache(maxsize=1)
def _icu_nfkd() -> Any:
    return _icu.Normalizer2.getNFKDInstance()


def js_nfkd(text: str) -> str:
    """`text.normalize('NFKD')`."""
    if text.isascii():
        return text
    if _icu is None:  # pragma: no cover - fallback only
        return unicodedata.normalize("NFKD", text)
    newer = _newer()
    if newer is not None and newer.nfkd_trigger.search(text):
        return newer.nfkd(text, _icu_nfkd_text, _combining_class)
    return _icu_nfkd_text(text)


def _icu_nfkd_text(text: str) -> str:
    if _SURROGATE.search(text):
        out = _icu.UnicodeString()
        _icu_nfkd().normalize(_icu.UnicodeString(_utf16_units(text)), out)
        return _from_units(out)
    return str(_icu_nfkd().normalize(text))


def _combining_class(ch: str) -> int:
    return int(_icu.Char.getCombiningClass(ord(ch)))
