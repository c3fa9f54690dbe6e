""""Why not?": one entry against each search string of the bench's call, as a report.

For every search string: the verdict, the query's words (search terms, and what was
dropped as stopwords, too short or numbers), each term's fate in this entry (matched,
not in this entry, only beyond the content cut, in no entry at all), the entry's score and
rank against the cut-off, what each field indexes, and the text beyond the cut.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from axmem_gui.core.catalog import searched_by, singular
from axmem_gui.services.bench import WhyNot

if TYPE_CHECKING:
    from axmem_gui.core.ax.explain import Explanation

#: How much of the text beyond the cut the report quotes.
CUT_QUOTE_CHARS = 400
STATUS_TEXT = {
    "matched": "matched",
    "not-in-entry": "not in this entry",
    "beyond-cut": "only beyond the content cut",
    "not-in-catalog": "in no entry of the catalog",
}


def _chip(text: str, css: str, title: str = "") -> str:
    tip = f' title="{escape(title)}"' if title else ""
    return f'<span class="{css}"{tip}>&nbsp;{escape(text)}&nbsp;</span>'


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def explanation_html(e: Explanation) -> str:
    verdict = "returned" if e.returned else "not returned"
    css = "ok" if e.returned else "bad"
    parts = [
        f'<p class="head"><b>{escape(repr(e.query))}</b> — '
        f'<b class="{css}">{verdict}</b>: {escape(e.reason)}</p>',
    ]
    terms = " ".join(
        _chip(t.term, t.status, STATUS_TEXT.get(t.status, t.status)
              + (f" ({', '.join(t.fields)})" if t.fields else ""))
        for t in e.terms
    )
    line = f"Search terms: {terms or '<i>none</i>'}"
    if e.dropped_query_words:
        dropped = ", ".join(
            f"<s>{escape(word)}</s> ({escape(why)})" for word, why in e.dropped_query_words
        )
        line += f" · dropped from the query: {dropped}"
    parts.append(f"<p>{line}</p>")
    matches = e.result.match_count if e.result.match_count is not None else len(e.result.matches)
    rank = "—" if e.rank is None else f"{e.rank} of {matches} matching"
    last = e.result.ranked[-1] if e.result.ranked else None
    parts.append(
        "<table class='facts'>"
        f"<tr><td>rank</td><td>{escape(rank)}</td></tr>"
        f"<tr><td>cut-off</td><td>the call keeps the top {e.cutoff} per search string"
        + (
            f"; the last kept is <code>{escape(last.id)}</code> with raw {last.raw:.4f}"
            if last is not None
            else ""
        )
        + "</td></tr>"
        f"<tr><td>raw</td><td>{_number(e.raw)}</td></tr>"
        f"<tr><td>coverage</td><td>{_number(e.coverage)}</td></tr>"
        f"<tr><td>score</td><td>{_number(e.score)} (raw / top raw)</td></tr>"
        + (
            "<tr><td>excluded</td><td>already loaded: not a recall candidate</td></tr>"
            if e.excluded
            else ""
        )
        + "</table>"
    )
    rows = []
    for f in e.fields:
        stop = ", ".join(f.stopwords)
        rows.append(
            f"<tr><td>{escape(f.label)}</td><td>{f.weight:g}</td>"
            f"<td><code>{escape(' '.join(f.terms))}</code></td>"
            f"<td class='muted'>{escape(stop)}</td></tr>"
        )
    parts.append(
        "<table class='fields'><tr><th>field</th><th>weight</th><th>search terms</th>"
        "<th>stopwords (ignored)</th></tr>" + "".join(rows) + "</table>"
    )
    for f in e.fields:
        if not f.cut_text:
            continue
        quote = f.cut_text[:CUT_QUOTE_CHARS]
        more = "…" if len(f.cut_text) > CUT_QUOTE_CHARS else ""
        wanted = {t.term for t in e.terms}
        lost = [t for t in dict.fromkeys(f.cut_terms) if t in wanted]
        lost_text = (
            f" Query terms only there: <b>{escape(', '.join(lost))}</b>." if lost else ""
        )
        parts.append(
            f"<p>Beyond the {escape(f.label)} cut ({len(f.cut_text):,} chars, never searched)."
            f"{lost_text}</p><pre class='cut'>{escape(quote)}{more}</pre>"
        )
    return "\n".join(parts)


STYLE = """
p { margin: 2px 0; }
p.head { margin-top: 4px; }
.ok { color: #2a8a3a; }
.bad { color: #c0392b; }
.matched { background: #cdeccf; color: #14401b; }
.not-in-entry { background: #e4e4e4; color: #333333; }
.beyond-cut { background: #f6dca8; color: #4d3300; }
.not-in-catalog { background: #f3c9c5; color: #5a1410; text-decoration: line-through; }
.muted { color: #808080; }
table.facts td, table.fields td, table.fields th { padding: 1px 6px; }
table.fields th { text-align: left; }
pre.cut { background: #f4ecd8; color: #3d3020; }
"""


def why_not_html(result: WhyNot) -> str:
    noun = singular(searched_by(result.kind))
    verdict = (
        "The call returns it." if result.returned_by_call else "The call does not return it."
    )
    head = (
        f"<p><b><code>{escape(result.entry_id)}</code></b> ({noun}) — {verdict} "
        f"{len(result.explanations)} search string(s):</p>"
    )
    body = "<hr/>".join(explanation_html(e) for e in result.explanations)
    return f"<html><head><style>{STYLE}</style></head><body>{head}{body}</body></html>"
