"""Ax catalog JSON: `{"skillsCatalog": [...], "memoriesCatalog": [...]}` and friends.

One reader (`values.catalog_from_value`) under two sets of rules: `read_ax_json` for an
import (collects every problem, refuses what cannot be stored) and
`catalog_from_json_value` / `catalog_from_json_text` for a catalog as Ax receives it
(sessions, `render --catalog`, suites, conformance: the first error is an InputError).
"""

from __future__ import annotations

from typing import Any

from axmem_gui.core import jsontext
from axmem_gui.core.catalog import Catalog
from axmem_gui.core.errors import InputError
from axmem_gui.core.formats.model import CatalogDoc, SourceCatalog
from axmem_gui.core.formats.values import (
    catalog_from_value,
    failed_source,
    memory_to_value,
    object_pairs,
    skill_to_value,
)
from axmem_gui.core.jsout import json_dumps


def parse_json_text(text: str) -> Any:
    """`jsontext.parse` that records duplicate keys (see `values.KeyedDict`); raises
    ValueError (json.JSONDecodeError with a position, mostly)."""
    return jsontext.parse(text, object_pairs_hook=object_pairs)


json_error_message = jsontext.error_message


def read_ax_json(text: str, source: str, *, keep_duplicates: bool = False) -> SourceCatalog:
    # A UTF-8 byte order mark is common from Windows editors and means nothing here.
    try:
        value = parse_json_text(text.removeprefix("\ufeff"))
    except ValueError as exc:
        return failed_source(source, "ax-json", json_error_message(exc))
    return catalog_from_value(value, source, "ax-json", keep_duplicates=keep_duplicates)


def catalog_from_json_value(value: Any, source: str = "catalog") -> Catalog:
    """A parsed catalog as Ax receives it (`{"skillsCatalog", "memoriesCatalog"}`,
    `{"skills", "memories"}` or a bare list); the first problem is an InputError in the
    import's words (`<source>: skills[0] 'a': field 'name' is missing`)."""
    read = catalog_from_value(value, source, "ax-json", as_ax=True)
    if read.errors:
        raise InputError(str(read.errors[0]))
    extra = {}
    if isinstance(value, dict):
        lists = ("skillsCatalog", "memoriesCatalog", "skills", "memories")
        extra = {k: v for k, v in value.items() if k not in lists}
    return Catalog(
        skills=tuple(s.skill for s in read.doc.skills), memories=read.doc.memories, extra=extra
    )


def catalog_from_json_text(text: str, source: str = "catalog") -> Catalog:
    return catalog_from_json_value(jsontext.loads(text, source), source)


def doc_to_json_value(doc: CatalogDoc) -> dict[str, list[dict[str, Any]]]:
    return {
        "skillsCatalog": [skill_to_value(s.skill) for s in doc.skills],
        "memoriesCatalog": [memory_to_value(m) for m in doc.memories],
    }


def write_ax_json(doc: CatalogDoc) -> str:
    """Pretty JSON, UTF-8 characters kept as they are, ending with a newline."""
    return json_dumps(doc_to_json_value(doc), indent=2) + "\n"
