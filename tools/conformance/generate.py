"""Seeded random inputs for the differential conformance run (`make conformance`).

`generate(seed, per_kind)` returns a case file in the format of
tests/golden/ax-24.0.21/cases.json (plus a `contextMap` list of update cases). Every case
belongs to one *kind*, named in its id (`s<seed>-<kind>-<n>`), that stresses one thing on a
plain base: the base uses lowercase ASCII ids and English words, so a difference found in a
kind can be blamed on what that kind adds. The same seed always gives the same file.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Case = dict[str, Any]

WORDS = [
    "release",
    "deploy",
    "rollback",
    "incident",
    "triage",
    "escalate",
    "invoice",
    "payment",
    "refund",
    "customer",
    "checkout",
    "search",
    "index",
    "cache",
    "database",
    "migration",
    "schema",
    "backup",
    "restore",
    "monitor",
    "alert",
    "latency",
    "error",
    "budget",
    "service",
    "owner",
    "team",
    "rotation",
    "oncall",
    "handoff",
    "review",
    "audit",
    "access",
    "secret",
    "token",
    "rotate",
    "canary",
    "feature",
    "flag",
    "rollout",
    "changelog",
    "version",
    "semver",
    "hotfix",
    "patch",
    "queue",
    "worker",
    "retry",
    "timeout",
    "region",
    "cluster",
    "node",
    "pod",
    "container",
    "image",
    "build",
    "pipeline",
    "test",
    "coverage",
    "lint",
    "format",
    "style",
    "guide",
    "tone",
    "docs",
    "onboarding",
    "billing",
    "quota",
    "limit",
    "report",
]
#: Words Ax drops as stopwords (they make queries and tasks go silent).
STOPWORDS = [
    "the",
    "a",
    "to",
    "of",
    "and",
    "how",
    "do",
    "I",
    "task",
    "fix",
    "help",
    "run",
    "new",
    "show",
    "use",
    "find",
    "first",
    "name",
    "value",
]

#: Text from many scripts and Unicode ages that CPython's Unicode (3.11: 14.0) knows too.
UNICODE_WORDS = [
    "café",
    "crème",
    "naïve",
    "façade",
    "Ærøskøbing",
    "straße",
    "İstanbul",
    "ıi",
    "ǅemal",
    "ﬁnance",
    "ＡＰＩ",
    "ｖ２",
    "Ωμέγα",
    "σίσυφος",
    "Привет",
    "Ёлка",
    "עברית",
    "العربية",
    "हिन्दी",
    "ไทย",
    "日本語のテキスト",
    "中文检索",
    "한국어",
    "Ꭰꭰ",
    "𝐁𝐨𝐥𝐝",
    "①②",
    "Ⅻ",
    "㎏",
    "½",
    "ﬀ",
    "🚀",
    "👩\u200d💻",
    "👍🏽",
    "🇫🇷",
    "🧪",
    "🫠",
    "á",
    "ë",
    "\xa0nbsp",
    "\u3000ideo",
    "zero\u200bwidth",
    "bom\ufeffword",
    "tab\tsep",
    "line\u2028sep",
    "«guillemets»",
    "“quotes”",
    "em—dash",
]
#: Characters whose case mapping or decomposition is newer than CPython 3.11's Unicode 14
#: (Unicode 15-17: Latin Extended-D additions, Garay capitals, new CJK and emoji).
RECENT_UNICODE = (
    "\ua7cb\ua7cc\ua7cd\ua7da\ua7dc",  # Latin capitals with lowercase mappings (16.0)
    "\U00010d50\U00010d51\U00010d52",  # Garay capital letters (16.0)
    "\U0001fae8\U0001faef",  # shaking face / fingerprint emoji (15.0 / 16.0)
    "\U00031350\U0002ebf0",  # CJK extension H / I (15.0 / 15.1)
    "\U0001ccd6\U0001ccf0",  # Symbols for Legacy Computing Supplement (16.0)
)
#: Unicode 17, where the wheel's ICU 77 and Node's ICU 78 still differ (the known residuals,
#: tools/conformance/known_differences.json), in about a third of the unicode-recent cases.
UNICODE_17 = (
    "\ua7ce\ua7cf",  # Latin capital/small letter (17.0): case mapping, collation
    "\ua7f1x",  # modifier letter capital S (17.0): NFKD
    "\U00016ea0\U00016ebb",  # Beria Erfe capital/small (17.0)
)
#: Ids that ICU 77 and ICU 78 order differently (Unicode 17 letters; Han whose
#: radical-stroke place moved), and their neighbours.
RECENT_IDS = ("\ua7cf", "\u4e2d", "\u52b3", "\u52b4", "\u4748", "\u8c61", "z", "a")
LONE_SURROGATES = ("\ud800", "\udfff", "\ud83d", "x\ude00y", "\udbff\udbff")
EMOJI = ("🚀", "👩‍💻", "🇫🇷", "👍🏽", "🧪", "𝐁")
#: Marks typed out of canonical order (Node's collator and NFKD see them in canonical
#: order: canonically equivalent strings compare 0), with the letter they sit on.
NON_FCD = (
    ("a", "\u0301\u0323"),  # Latin: acute (230) before dot below (220)
    ("e", "\u0300\u0327"),  # grave (230) before cedilla (202)
    ("o", "\u0308\u031b"),  # diaeresis (230) before horn (216)
    ("\u0645", "\u0651\u064e"),  # Arabic: shadda (33) before fatha (30)
    ("\u0628", "\u0651\u0650"),  # shadda before kasra (32)
    ("\u0644", "\u0652\u064f"),  # sukun (34) before damma (31)
    ("\u05e9", "\u05c1\u05bc"),  # Hebrew: shin dot (24) before dagesh (21)
    ("\u05d1", "\u05bc\u05b8"),  # dagesh (21) before qamats (18)
    ("\u0915", "\u094d\u093c"),  # Devanagari: virama (9) before nukta (7)
    ("\u0995", "\u09cd\u09bc"),  # Bengali
    ("\u0a15", "\u0a4d\u0a3c"),  # Gurmukhi
)
#: Lone surrogates beside astral characters (ICU through PyICU once made them U+FFFD).
ASTRAL_SURROGATES = (
    "\U0001f600\ud83d",
    "\udc00\U0001f600",
    "a\U0001f600\udfff",
    "\U0001d401\ud800x",
    "\ud83d\U0001f680",
    "\U0001f680\ude00",
    "x\ud83c\U0001f350",
    "ab\ud83c",
    "ab\udc00",
    "\U0001f600",
)
BLANKS = ("", " ", "   ", "\t", "\n", "\u00a0", "\u3000", " \n ")
COLLATION_IDS = (
    "a",
    "A",
    "á",
    "Ä",
    "ae",
    "Æ",
    "ß",
    "ss",
    "_x",
    "-y",
    ".z",
    "10",
    "9",
    "a-b",
    "a_b",
    "a.b",
    "ab",
    "aB",
    "AB",
    "e",
    "é",
    "É",
    "ø",
    "o",
    "z",
    "Zeta",
    "ω",
    "Ω",
    "日本",
    "中文",
    "🚀",
    "a b",
    "mem:a",
    "MEM:b",
    "i",
    "İ",
    "ı",
    "ǆ",
    "Ǆ",
    "ǅ",
    "x1",
    "x01",
    "x 1",
)
FIELD_NAMES = (
    "query",
    "executorRequest",
    "loadedSkills",
    "memories",
    "actionLog",
    "relevanceHints",
    "javascriptCode",
    "contextMetadata",
    "guidanceLog",
)
SECTION_NAMES = (
    "context_roadmap",
    "context_understanding",
    "domain_constants",
    "parsing_schema",
    "reusable_results",
    "error_patterns",
    "CONTEXT ROADMAP",
    "Domain-Constants",
    "nonsense",
    "",
)
SECTION_PREFIXES = ("cr", "cu", "dc", "ps", "rr", "ep")
SECTION_TITLES = (
    "CONTEXT ROADMAP",
    "CONTEXT UNDERSTANDING",
    "DOMAIN CONSTANTS",
    "PARSING SCHEMA",
    "REUSABLE RESULTS",
    "ERROR PATTERNS",
)


class Gen:
    """Random building blocks on one seeded `random.Random`."""

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def words(self, lo: int, hi: int, pool: tuple[str, ...] | list[str] = WORDS) -> str:
        return " ".join(self.r.choice(pool) for _ in range(self.r.randint(lo, hi)))

    def ident(self, n: int) -> str:
        return f"{self.r.choice(WORDS)}-{self.r.choice(WORDS)}-{n}"

    def skill(self, n: int, text: Callable[[int, int], str] | None = None) -> dict[str, Any]:
        text = text or self.words
        skill: dict[str, Any] = {
            "id": self.ident(n),
            "name": text(1, 4).capitalize(),
            "content": text(5, 60),
        }
        if self.r.random() < 0.8:
            skill["description"] = text(3, 14)
        return skill

    def memory(self, n: int, text: Callable[[int, int], str] | None = None) -> dict[str, Any]:
        text = text or self.words
        return {"id": f"mem-{self.ident(n)}", "content": text(4, 40)}

    def catalog(self, case: Case, skills: tuple[int, int], memories: tuple[int, int]) -> None:
        ns, nm = self.r.randint(*skills), self.r.randint(*memories)
        if ns:
            case["skills"] = [self.skill(i) for i in range(ns)]
        if nm:
            case["memories"] = [self.memory(i) for i in range(nm)]

    def query(self, entries: list[dict[str, Any]]) -> str:
        """A search string: words of one entry (so it hits), random words, or stopwords."""
        roll = self.r.random()
        if entries and roll < 0.6:
            entry = self.r.choice(entries)
            source = " ".join(str(entry.get(k, "")) for k in ("name", "description", "content"))
            pool = source.split() or ["nothing"]
            return " ".join(self.r.choice(pool) for _ in range(self.r.randint(1, 4)))
        if roll < 0.9:
            return self.words(1, 4)
        return self.words(1, 3, STOPWORDS)

    def calls(self, case: Case, key: str, entries: list[dict[str, Any]], turns: int) -> None:
        if turns:
            case[key] = [
                [self.query(entries) for _ in range(self.r.randint(1, 3))] for _ in range(turns)
            ]

    def task(self, case: Case) -> None:
        roll = self.r.random()
        if roll < 0.45:
            entries = case.get("skills", []) + case.get("memories", [])
            case["task"] = self.query(entries)
        elif roll < 0.75:
            case["task"] = self.words(2, 12)
        # else: no task (the oracle's default query)

    def ranking(self, case: Case) -> None:
        roll = self.r.random()
        if roll < 0.1:
            case["relevanceRanking"] = False
        elif roll < 0.3:
            options = {
                "topK": self.r.randint(1, 5),
                "minScore": self.r.choice([0, 0.05, 0.08, 0.3, 0.9]),
                "marginRatio": self.r.choice([0, 0.15, 0.5]),
                "minDocs": self.r.randint(1, 3),
            }
            keys = self.r.sample(sorted(options), self.r.randint(1, 4))
            case["relevanceRanking"] = {k: options[k] for k in keys}

    def plain(self, case: Case) -> None:
        self.catalog(case, (0, 10), (0, 10))
        if "skills" not in case and "memories" not in case:
            case["skills"] = [self.skill(0), self.skill(1)]
        self.calls(case, "discoverCalls", case.get("skills", []), self.r.randint(0, 3))
        self.calls(case, "recallCalls", case.get("memories", []), self.r.randint(0, 3))
        self.task(case)
        self.ranking(case)

    def text_from(self, pool: tuple[str, ...]) -> Callable[[int, int], str]:
        def text(lo: int, hi: int) -> str:
            mixed = [*pool, *WORDS]
            return " ".join(self.r.choice(mixed) for _ in range(self.r.randint(lo, hi)))

        return text

    def texts(self, case: Case, pool: tuple[str, ...], queries: bool = True) -> None:
        """The plain base with name/description/content (and queries, task) drawn from `pool`."""
        text = self.text_from(pool)
        case["skills"] = [self.skill(i, text) for i in range(self.r.randint(2, 8))]
        case["memories"] = [self.memory(i, text) for i in range(self.r.randint(0, 6))]
        if not case["memories"]:
            del case["memories"]
        q = (lambda _e: text(1, 3)) if queries else self.query
        turns = self.r.randint(1, 3)
        case["discoverCalls"] = [
            [q(case["skills"]) for _ in range(self.r.randint(1, 2))] for _ in range(turns)
        ]
        if "memories" in case:
            case["recallCalls"] = [[q(case["memories"])] for _ in range(self.r.randint(1, 2))]
        case["task"] = text(1, 6)


# --------------------------------------------------------------------------- kinds


def k_plain(g: Gen, case: Case) -> None:
    g.plain(case)


def k_unicode_text(g: Gen, case: Case) -> None:
    g.texts(case, tuple(UNICODE_WORDS) + EMOJI)


def k_unicode_recent(g: Gen, case: Case) -> None:
    if g.r.random() < 0.35:  # ICU 78 territory: Unicode 17 text, ids whose order moved
        g.texts(case, RECENT_UNICODE + UNICODE_17)
        entries = case["skills"] + case.get("memories", [])
        for entry, new_id in zip(entries, g.r.sample(RECENT_IDS, 3), strict=False):
            entry["id"] = new_id
    else:
        g.texts(case, RECENT_UNICODE)


def k_lone_surrogates(g: Gen, case: Case) -> None:
    g.texts(case, LONE_SURROGATES)


def k_cut_600(g: Gen, case: Case) -> None:
    """Contents around the 600-unit cut, an astral emoji or a word straddling it."""
    g.catalog(case, (2, 6), (0, 5))
    case.setdefault("skills", [g.skill(0), g.skill(1)])
    needle = g.r.choice(WORDS) + "needle"
    for entry in case.get("skills", []) + case.get("memories", []):
        head = ("lorem " * 120)[: g.r.randint(590, 600)]
        tail = g.r.choice(EMOJI) + g.r.choice(["", needle, " " + needle, "x" + needle])
        entry["content"] = head + tail + " " + g.words(0, 5)
    queries = [needle, needle[:4], "lorem " + needle, g.r.choice(EMOJI)]
    case["discoverCalls"] = [[g.r.choice(queries)] for _ in range(g.r.randint(1, 3))]
    if "memories" in case:
        case["recallCalls"] = [[g.r.choice(queries)]]
    case["task"] = needle


def k_ties(g: Gen, case: Case) -> None:
    """Entries identical but for their id: the order is the tie-break."""
    body = {"name": g.words(1, 3), "description": g.words(2, 6), "content": g.words(5, 20)}
    ids = g.r.sample(["alpha", "Alpha", "beta", "b", "a-1", "a_1", "a1", "zeta", "tie"], 5)
    case["skills"] = [{"id": i, **body} for i in ids]
    mem_body = g.words(5, 15)
    case["memories"] = [{"id": f"m-{i}", "content": mem_body} for i in ids[:4]]
    word = g.r.choice(body["name"].split())
    case["discoverCalls"] = [[word]]
    case["recallCalls"] = [[g.r.choice(mem_body.split())]]
    case["task"] = word
    case["relevanceRanking"] = g.r.choice([None, {"marginRatio": 0}, {"marginRatio": 0, "topK": 5}])
    if case["relevanceRanking"] is None:
        del case["relevanceRanking"]


def k_collation(g: Gen, case: Case) -> None:
    """Ids that only ICU collation orders right (case, accents, punctuation, scripts)."""
    ids = g.r.sample(COLLATION_IDS, g.r.randint(4, 12))
    case["skills"] = [
        {"id": i, "name": f"Name {i}", "description": g.words(1, 5), "content": g.words(3, 10)}
        for i in ids
    ]
    case["memories"] = [{"id": i, "content": g.words(3, 10)} for i in g.r.sample(ids, 3)]
    case["discoverCalls"] = [[g.words(1, 2)]]
    case["recallCalls"] = [[g.words(1, 2)]]
    case["presetSkills"] = [
        {"id": i, "name": f"Preset {i}", "content": "p"} for i in g.r.sample(COLLATION_IDS, 3)
    ]
    case["preloadedMemories"] = [{"id": i, "content": "pre"} for i in g.r.sample(COLLATION_IDS, 3)]


def _reordered(base: str, marks: str, canonical: bool) -> str:
    """`base` with `marks` in the order given (non-canonical) or reversed (canonical)."""
    return base + (marks[::-1] if canonical else marks)


def k_nonfcd_marks(g: Gen, case: Case) -> None:
    """Ids, words and queries with combining marks typed out of canonical order next to the
    same text in canonical order: equal for Node's collator (ties keep catalog order) and
    the same token after NFKD."""
    picked = g.r.sample(NON_FCD, g.r.randint(2, 4))
    words = [
        _reordered(base, marks, g.r.random() < 0.5) + g.r.choice(["", "x", "ka"])
        for base, marks in picked
        for _ in range(2)
    ]
    text = g.text_from(tuple(words))
    body = {"name": text(1, 3), "description": text(2, 5), "content": text(4, 12)}
    ids = [
        _reordered(base, marks, canonical) + suffix
        for base, marks in picked
        for canonical in (False, True)
        for suffix in ("", g.r.choice(["", "-1", "b"]))
    ]
    g.r.shuffle(ids)
    ids = ids[: g.r.randint(3, 8)]
    case["skills"] = [
        {"id": i, **(body if g.r.random() < 0.6 else g.skill(n, text))}
        for n, i in enumerate(ids)
    ]
    mem_body = text(3, 10)
    case["memories"] = [
        {"id": i, "content": mem_body if g.r.random() < 0.6 else text(3, 10)} for i in ids
    ]
    case["discoverCalls"] = [[text(1, 2)] for _ in range(g.r.randint(1, 2))]
    case["recallCalls"] = [[text(1, 2)]]
    case["task"] = text(1, 4)
    case["relevanceRanking"] = g.r.choice([{"marginRatio": 0, "topK": 6}, {"minScore": 0}, True])
    if g.r.random() < 0.4:
        case["presetSkills"] = [
            {"id": i, "name": f"Preset {n}", "content": "p"} for n, i in enumerate(ids[:2])
        ]
    if g.r.random() < 0.4:
        case["preloadedMemories"] = [{"id": i, "content": "pre"} for i in ids[-2:]]


def k_astral_surrogates(g: Gen, case: Case) -> None:
    """Lone surrogates in strings that also hold an astral character: texts, ids,
    queries and tasks."""
    g.texts(case, ASTRAL_SURROGATES)
    entries = case["skills"] + case.get("memories", [])
    for entry in g.r.sample(entries, min(len(entries), g.r.randint(1, 4))):
        entry["id"] = g.r.choice(ASTRAL_SURROGATES) + g.r.choice(["", "x", "\U0001f600"])
    if g.r.random() < 0.5:
        case["relevanceRanking"] = {"marginRatio": 0, "minScore": 0}


def _half_emoji_content(g: Gen, cut: int, needle: str) -> str:
    """A text holding an astral character early on whose `cut`-unit prefix ends inside
    another emoji, right after `needle` (or after filler)."""
    head = g.r.choice((*EMOJI[:3], "\U0001f600")) + " "
    filler_units = cut - 1 - len(head.encode("utf-16-le")) // 2 - len(needle)
    filler = ("lorem " * (cut // 6 + 2))[: max(filler_units - 1, 0)] + " "
    emoji = g.r.choice(("\U0001f680", "\U0001f600", "\U0001f350", "\U0001d401"))
    return head + filler[: max(filler_units, 0)] + needle + emoji + " " + g.words(0, 4)


def k_half_emoji_600(g: Gen, case: Case) -> None:
    """Contents whose 600-unit cut leaves the high surrogate of an emoji, in texts that
    also hold a whole astral character; queries with that half, U+FFFD, or the emoji."""
    needle = g.r.choice(WORDS)
    for key, make in (("skills", g.skill), ("memories", g.memory)):
        entries = [make(i) for i in range(g.r.randint(1, 4))]
        for entry in entries:
            if g.r.random() < 0.8:
                entry["content"] = _half_emoji_content(g, 600, needle)
        case[key] = entries
    halves = [needle + "\ud83d", needle + "\ud83c", needle + "\ud835", needle + "\ufffd"]
    queries = [*halves, needle + "\U0001f680", needle, "lorem " + g.r.choice(halves)]
    case["discoverCalls"] = [[g.r.choice(queries)] for _ in range(g.r.randint(1, 3))]
    case["recallCalls"] = [[g.r.choice(queries), g.r.choice(queries)]]
    case["task"] = g.r.choice(queries)
    case["relevanceRanking"] = g.r.choice([{"marginRatio": 0, "minScore": 0}, True])


def k_half_emoji_80(g: Gen, case: Case) -> None:
    """Memories whose 80-unit hint snippet (whitespace collapsed, trimmed) ends inside an
    emoji, in contents that also hold a whole astral character."""
    needle = g.r.choice(WORDS)
    case["memories"] = [
        {"id": f"mem-{n}", "content": _half_emoji_content(g, 80, needle)}
        for n in range(g.r.randint(1, 4))
    ]
    for memory in g.r.sample(case["memories"], 1):
        memory["content"] = g.r.choice(["  ", "\n\t", ""]) + memory["content"]
    case["memories"].append({"id": "mem-other", "content": g.words(3, 8)})
    case["task"] = needle + g.r.choice(["", " lorem", "\ud83d"])
    case["relevanceRanking"] = g.r.choice(
        [{"marginRatio": 0, "minScore": 0, "topK": 5}, {"minScore": 0}, True]
    )


def k_blank_strings(g: Gen, case: Case) -> None:
    """Empty and whitespace-only names, descriptions, contents, ids and search strings."""
    g.plain(case)
    case.setdefault("skills", [g.skill(0)])
    for entry in case.get("skills", []):
        for key in ("name", "description", "content", "id"):
            if g.r.random() < 0.25:
                entry[key] = g.r.choice(BLANKS)
    for entry in case.get("memories", []):
        if g.r.random() < 0.3:
            entry[g.r.choice(["id", "content"])] = g.r.choice(BLANKS)
    case["discoverCalls"] = [
        [g.r.choice([*BLANKS, g.words(1, 2)]) for _ in range(g.r.randint(1, 3))]
        for _ in range(g.r.randint(1, 2))
    ]
    if "memories" in case:
        case["recallCalls"] = [[g.r.choice([*BLANKS, g.words(1, 2)])]]
    if g.r.random() < 0.3:
        case["discoverCalls"].append([])


def k_empty_task(g: Gen, case: Case) -> None:
    g.plain(case)
    case["task"] = g.r.choice(["", "", " ", "\n"])


def k_extra_keys(g: Gen, case: Case) -> None:
    """Catalog entries with keys Ax ignores (tags, numbers, nested objects, null)."""
    g.plain(case)
    extras: list[tuple[str, Any]] = [
        ("tags", ["a", "b"]),
        ("priority", 3),
        ("meta", {"owner": "x"}),
        ("enabled", True),
        ("note", None),
        ("updatedAt", "2026-01-01"),
    ]
    for entry in case.get("skills", []) + case.get("memories", []):
        for key, value in g.r.sample(extras, g.r.randint(1, 3)):
            entry[key] = value


def k_large(g: Gen, case: Case) -> None:
    n_skills, n_memories = g.r.randint(150, 400), g.r.randint(200, 600)
    case["skills"] = [g.skill(i) for i in range(n_skills)]
    case["memories"] = [g.memory(i) for i in range(n_memories)]
    g.calls(case, "discoverCalls", case["skills"], g.r.randint(1, 3))
    g.calls(case, "recallCalls", case["memories"], g.r.randint(1, 3))
    g.task(case)
    g.ranking(case)


def k_hints(g: Gen, case: Case) -> None:
    """Relevance hints: tasks that hit, every option combination, few entries."""
    g.catalog(case, (1, 6), (1, 6))
    entries = case.get("skills", []) + case.get("memories", [])
    case["task"] = " ".join(g.query(entries) for _ in range(g.r.randint(1, 4)))
    g.ranking(case)
    if g.r.random() < 0.5:
        case["preloadedMemories"] = [
            {"id": m["id"], "content": m["content"]}
            for m in g.r.sample(case.get("memories", []), min(2, len(case.get("memories", []))))
        ]


def k_recall(g: Gen, case: Case) -> None:
    """Memories only: preloaded entries (own content wins), padded ids, repeated recalls."""
    case["memories"] = [g.memory(i) for i in range(g.r.randint(2, 12))]
    for m in g.r.sample(case["memories"], min(2, len(case["memories"]))):
        if g.r.random() < 0.4:
            m["id"] = g.r.choice([" ", "  "]) + m["id"] + g.r.choice(["", " "])
    pre = g.r.sample(case["memories"], g.r.randint(0, 2))
    if pre:
        case["preloadedMemories"] = [
            {
                "id": m["id"].strip(),
                "content": g.r.choice([m["content"], "preloaded " + g.words(2, 5)]),
            }
            for m in pre
        ]
    g.calls(case, "recallCalls", case["memories"], g.r.randint(1, 4))
    g.task(case)


def k_discover(g: Gen, case: Case) -> None:
    """Skills only: repeated and case-variant searches, duplicate ids, id-shaped queries."""
    case["skills"] = [g.skill(i) for i in range(g.r.randint(2, 12))]
    if g.r.random() < 0.4:
        dup = dict(g.r.choice(case["skills"]))
        dup["name"] = g.words(1, 3)
        case["skills"].append(dup)
    calls = []
    for _ in range(g.r.randint(1, 4)):
        q = g.query(case["skills"])
        calls.append(g.r.choice([[q], [q, q], [q, q.upper()], [g.r.choice(case["skills"])["id"]]]))
    case["discoverCalls"] = calls
    g.task(case)


def k_markdown(g: Gen, case: Case) -> None:
    """Multi-line markdown, 3+ newlines, and ids equal to the stage's field names."""
    g.plain(case)
    case.setdefault("skills", [g.skill(0)])
    for entry in case["skills"]:
        if g.r.random() < 0.5:
            entry["description"] = (
                f"{g.words(1, 3)}\n\n\n\n### {g.words(1, 2)}\n- `{g.r.choice(FIELD_NAMES)}`\n"
                f'```js\nconst x = 1;\n```\n(query) [memories] $actionLog "loadedSkills"'
            )
        if g.r.random() < 0.3:
            entry["id"] = g.r.choice(FIELD_NAMES)
        if g.r.random() < 0.3:
            entry["content"] += "\n"


def k_preset(g: Gen, case: Case) -> None:
    """Constructor skills: id from the trimmed name, blank ids, empty names, replaced ids."""
    g.plain(case)
    case.setdefault("skills", [g.skill(0)])
    presets = []
    for i in range(g.r.randint(1, 4)):
        preset: dict[str, Any] = {
            "name": g.r.choice([g.words(1, 3), f"  {g.words(1, 2)}  ", ""]),
            "content": g.words(2, 8),
        }
        roll = g.r.random()
        if roll < 0.3:
            preset["id"] = g.r.choice(case["skills"])["id"]
        elif roll < 0.5:
            preset["id"] = g.r.choice(["", "   "])
        elif roll < 0.8:
            preset["id"] = f"preset-{i}"
        presets.append(preset)
    case["presetSkills"] = presets


KINDS: dict[str, Callable[[Gen, Case], None]] = {
    "plain": k_plain,
    "unicode-text": k_unicode_text,
    "unicode-recent": k_unicode_recent,
    "lone-surrogates": k_lone_surrogates,
    "cut-600": k_cut_600,
    "ties": k_ties,
    "collation": k_collation,
    "blank-strings": k_blank_strings,
    "empty-task": k_empty_task,
    "extra-keys": k_extra_keys,
    "large-catalog": k_large,
    "hints": k_hints,
    "recall": k_recall,
    "discover": k_discover,
    "markdown": k_markdown,
    "preset-skills": k_preset,
    "nonfcd-marks": k_nonfcd_marks,
    "astral-surrogates": k_astral_surrogates,
    "half-emoji-600": k_half_emoji_600,
    "half-emoji-80": k_half_emoji_80,
}
#: Large catalogs cost the most (Ax's search has no index): fewer of them.
KIND_WEIGHT = {"large-catalog": 0.25}


# --------------------------------------------------------------------------- context map


def _map_text(g: Gen, next_id: list[int]) -> str:
    lines = []
    for prefix, title in zip(SECTION_PREFIXES, SECTION_TITLES, strict=True):
        if g.r.random() < 0.6:
            lines.append(f"## {title}")
            for _ in range(g.r.randint(0, 3)):
                next_id[0] += g.r.randint(1, 3)
                content = g.r.choice([g.words(2, 10), g.text_from(tuple(UNICODE_WORDS))(2, 6)])
                lines.append(f"[{prefix}-{next_id[0]:05d}] {content}")
    if g.r.random() < 0.2:
        lines.insert(0, "Notes kept verbatim above the sections.")
    return "\n".join(lines)


def context_map_case(g: Gen, n: int, seed: int) -> Case:
    next_id = [0]
    text = _map_text(g, next_id)
    ids = [line[1:].split("]")[0] for line in text.splitlines() if line.startswith("[")]
    snapshot: dict[str, Any] = {"version": 1, "text": text}
    if g.r.random() < 0.8:
        snapshot["maxChars"] = g.r.choice([150, 300, 600, 1200, 4000])
    if ids and g.r.random() < 0.6:
        snapshot["scores"] = {
            i: g.r.choice([-2, -1, 0, 1, 3]) for i in g.r.sample(ids, len(ids) // 2)
        }
    if g.r.random() < 0.3:
        snapshot["steps"] = g.r.randint(0, 5)
    if g.r.random() < 0.15:
        snapshot["infiniteEvolve"] = False
        snapshot["evolveSteps"] = g.r.randint(1, 6)
    tags = {
        i: g.r.choice(["helpful", "harmful", "stale", "neutral", "bogus"])
        for i in ids
        if g.r.random() < 0.5
    }
    if g.r.random() < 0.2:
        tags["zz-00042"] = "helpful"
    operations: list[Any] = []
    for _ in range(g.r.randint(0, 5)):
        roll = g.r.random()
        if roll < 0.45:
            operations.append(
                {
                    "type": g.r.choice(["ADD", "add", "Add"]),
                    "section": g.r.choice(SECTION_NAMES),
                    "content": g.words(1, 12),
                }
            )
        elif roll < 0.65 and ids:
            key = g.r.choice(["item_id", "itemId"])
            operations.append({"type": "DELETE", key: g.r.choice([*ids, "cu-09999"])})
        elif roll < 0.9 and ids:
            key = g.r.choice(["item_id", "itemId"])
            operations.append({"type": "REPLACE", key: g.r.choice(ids), "content": g.words(1, 8)})
        else:
            operations.append(
                g.r.choice(
                    [
                        {"type": "MERGE"},
                        {"type": "ADD", "section": "cu"},
                        "not an object",
                        {"type": "ADD", "content": "x"},
                    ]
                )
            )
    payload: dict[str, Any] = {"operations": operations}
    if tags or g.r.random() < 0.5:
        payload["itemTags"] = tags
    if g.r.random() < 0.3:
        payload["diagnosis"] = g.words(2, 8)
    return {"id": f"s{seed}-contextmap-{n:03d}", "snapshot": snapshot, "payload": payload}


# --------------------------------------------------------------------------- the file


def generate(seed: int, per_kind: int = 20, context_maps: int = 40) -> dict[str, Any]:
    rng = random.Random(seed)
    g = Gen(rng)
    cases: list[Case] = []
    for kind, build in KINDS.items():
        for n in range(max(1, round(per_kind * KIND_WEIGHT.get(kind, 1.0)))):
            case: Case = {"id": f"s{seed}-{kind}-{n:03d}"}
            build(g, case)
            cases.append(case)
    return {
        "seed": seed,
        "tokenizer": {
            "text": [g.text_from(tuple(UNICODE_WORDS))(1, 6) for _ in range(20)]
            + [g.text_from(ASTRAL_SURROGATES + tuple(b + m for b, m in NON_FCD))(1, 5)
               for _ in range(10)],
            "identifier": [
                g.r.choice(COLLATION_IDS) + g.r.choice(["Foo", "HTTPServer", "v2API", "-x"])
                for _ in range(10)
            ],
        },
        "collation": [g.r.sample(COLLATION_IDS, 12) for _ in range(3)]
        + [
            [_reordered(b, m, g.r.random() < 0.5) for b, m in g.r.sample(NON_FCD, 6)]
            + [_reordered(b, m, True) for b, m in g.r.sample(NON_FCD, 4)]
            + list(g.r.sample(ASTRAL_SURROGATES, 4))
            for _ in range(2)
        ],
        "cases": cases,
        "contextMap": [context_map_case(g, n, seed) for n in range(context_maps)],
    }


def kind_of(case_id: str) -> str:
    """`s12-unicode-text-003` -> `unicode-text`."""
    return case_id.split("-", 1)[1].rsplit("-", 1)[0]
