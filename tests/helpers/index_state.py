"""The whole state of a `SearchIndex`, to compare two indexes built different ways."""

from __future__ import annotations

from axmem_gui.core.ax.index import SearchIndex
from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.ranking import RankOptions


def exact_state(index: SearchIndex) -> dict[str, object]:
    """Everything the index holds, in its own order: dict orders and codes included."""
    codes = index._codes
    return {
        "docs": list(index._docs.items()),
        "ids": list(index._ids.items()),
        "keys": list(index._keys.items()),
        "terms": list(codes.terms.of_code),
        # (words that are never a term are remembered with the empty code: a cache)
        "term_codes": [(t, c) for t, c in codes.terms.items() if c],
        "freqs": [(type(f), f) for f in codes.freqs.of_code],
        "wide": codes.wide,
        "ones": [(t, list(m)) for t, m in index._ones.items()],
        "more": [
            (t, [(type(f), f, list(m)) for f, m in g.items()]) for t, g in index._more.items()
        ],
        "by_id": list(index._handles_by_id.items()),
        "order": list(index._order),
        "next": index._next,
    }


def assert_same_rankings(
    got: SearchIndex, want: SearchIndex, query: str, profile: AxProfile
) -> None:
    """`got` ranks `query` as `want` does: best effort and strict, walked and in full,
    with an id ("dup") suppressed."""
    for opts in (RankOptions.best_effort(2), RankOptions.strict(profile)):
        for full_ranking in (False, True):
            a = got.rank(query, opts, frozenset({"dup"}), full_ranking=full_ranking)
            b = want.rank(query, opts, frozenset({"dup"}), full_ranking=full_ranking)
            assert (a.ranked, a.matches, a.suppression) == (b.ranked, b.matches, b.suppression)
