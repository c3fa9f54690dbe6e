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
Python `str`): ICU works on UTF-16 and takes them as the unpaired code units they are.
"""

from __future__ import annotations

import struct
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

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


# ------------------------------------------------------------------ collation keys


@lru_cache(maxsize=1)
def _icu_sort_key() -> Callable[[str], bytes]:
    collator = _icu.Collator.createInstance(_icu.Locale(COLLATION_LOCALE))
    # JavaScript's Intl defaults for localeCompare (and ICU's for the locale):
    # tertiary strength, non-ignorable punctuation, no forced normalization pass.
    key: Callable[[str], bytes] = collator.getSortKey
    return key


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
        return _icu_sort_key()
    return _pyuca_sort_key()  # pragma: no cover - fallback only


# ------------------------------------------------------------------ case and normalization


@lru_cache(maxsize=1)
def _icu_root() -> Any:
    return _icu.Locale.getRoot()


def js_lower(text: str) -> str:
    """`text.toLowerCase()`: full, locale-independent mappings (Final_Sigma included)."""
    if text.isascii():
        return text.lower()
    if _icu is not None:
        return str(_icu.CaseMap.toLower(_icu_root(), text))
    return text.lower()  # pragma: no cover - fallback only


@lru_cache(maxsize=1)
def _icu_nfkd() -> Any:
    return _icu.Normalizer2.getNFKDInstance()


def js_nfkd(text: str) -> str:
    """`text.normalize('NFKD')`."""
    if text.isascii():
        return text
    if _icu is not None:
        return str(_icu_nfkd().normalize(text))
    return unicodedata.normalize("NFKD", text)  # pragma: no cover - fallback only


def version_line() -> str:
    """One line for `--version` and About: the text engine in use."""
    return f"Unicode text: {text_engine().describe()}; Python {sys.version.split()[0]}"
