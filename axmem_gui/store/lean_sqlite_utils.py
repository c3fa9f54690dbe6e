"""sqlite-utils without the array libraries it would import.

`sqlite_utils.db` imports pandas and numpy when they are installed, to map their scalar
types to column types. The store never inserts such values, and the imports cost start-up
dearly: numpy alone is ~80 ms before the first paint (it is installed wherever the local
model's `llama-cpp-python` is), pandas several times that. So sqlite-utils is imported
here, once, while those two names are blocked in `sys.modules` (its `try: import …
except ImportError` then takes the "not installed" branch); the block is lifted right
after, so any other code can still import them. Every store module imports sqlite-utils
through this module.
"""

from __future__ import annotations

import sys

_BLOCKED = ("numpy", "pandas")


def _import_lean() -> None:
    if "sqlite_utils.db" in sys.modules:
        return  # imported already (by someone else): nothing left to save
    blocked = [name for name in _BLOCKED if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # "import name" raises ImportError
    try:
        import sqlite_utils.db  # noqa: F401
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]


_import_lean()

from sqlite_utils import Database, Migrations  # noqa: E402

__all__ = ["Database", "Migrations"]
