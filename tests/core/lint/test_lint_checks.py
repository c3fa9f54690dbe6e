"""Each lint check fires on the catalog shape it is about, and stops firing once fixed."""

from __future__ import annotations

from dataclasses import replace

from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.core.lint import CODES, LintOptions, LintReport, lint_catalog

# Background skills so searches have a realistic catalog to rank against.
BASE = (
    Skill(
        "release-checklist",
        "Release checklist",
        "Steps for shipping a new package release safely",
        "Tag, publish and announce a release.",
    ),
    Skill(
        "incident-response",
        "Incident response",
        "How to acknowledge, triage and escalate production incidents",
        "Page the on-call engineer, open a channel, post to the status page.",
    ),
)


def _lint(*skills: Skill, memories: tuple[Memory, ...] = (), **options: object) -> LintReport:
    return lint_catalog(Catalog(skills=BASE + skills, memories=memories), LintOptions(**options))  # type: ignore[arg-type]


def _codes(report: LintReport, entry_id: str | None = None) -> list[str]:
    return [f.code for f in report.findings if entry_id is None or f.entry_id == entry_id]


def test_clean_catalog_has_no_findings() -> None:
    assert lint_catalog(Catalog(skills=BASE)).findings == ()


def test_duplicate_ids() -> None:
    report = _lint(replace(BASE[0], name="Release checklist v2"))
    dup = [f for f in report.findings if f.code == "duplicate-id"]
    assert len(dup) == 1 and dup[0].severity == "error"
    assert dup[0].entry_id == "release-checklist"
    assert "catalog positions 1, 3" in dup[0].message
    assert report.has_errors


def test_ids_equal_after_trim_and_padded_ids() -> None:
    padded = Skill(" release-checklist ", "Release (padded)", "A padded twin", "x")
    report = _lint(padded)
    assert _codes(report, " release-checklist ") == ["duplicate-trimmed-id", "padded-id"]
    assert _codes(report, "release-checklist") == ["duplicate-trimmed-id"]
    twin = next(f for f in report.findings if f.entry_id == "release-checklist")
    assert twin.related == (" release-checklist ",)


def test_ids_differing_only_by_case() -> None:
    report = _lint(Skill("Release-Checklist", "Release checklist copy", "Steps again", "x"))
    assert "id-case-collision" in _codes(report, "Release-Checklist")
    assert "id-case-collision" in _codes(report, "release-checklist")
    assert not [f for f in report.findings if f.code == "duplicate-trimmed-id"]


def test_empty_and_whitespace_names() -> None:
    report = _lint(Skill("nameless", "   ", "Has no name at all", "content here"))
    (f,) = [f for f in report.findings if f.code == "empty-name"]
    assert f.entry_id == "nameless" and f.severity == "error" and f.field == "name"
    assert "drops it from Loaded Skills" in f.message


def test_empty_ids_for_skills_and_memories() -> None:
    report = _lint(
        Skill("  ", "Blank id skill", "Loads under its name", "x"),
        memories=(Memory("", "User prefers metric units"),),
    )
    assert [(f.kind, f.code) for f in report.findings if f.code == "empty-id"] == [
        ("skill", "empty-id"),
        ("memory", "empty-id"),
    ]


def test_empty_description() -> None:
    report = _lint(Skill("rollback-procedure", "Rollback procedure", "", "Revert the deploy."))
    assert _codes(report, "rollback-procedure") == ["empty-description"]
    whitespace = _lint(Skill("rollback-procedure", "Rollback procedure", "  ", "Revert."))
    f = next(f for f in whitespace.findings if f.code == "empty-description")
    assert "only white space" in f.message


def test_camel_case_id_cannot_be_found_by_its_own_words() -> None:
    skill = Skill("lookupInvoiceStatus", "Invoice status", "Find where an invoice stands", "x")
    report = _lint(skill)
    (f,) = [f for f in report.findings if f.code == "id-not-searchable"]
    assert "'lookupinvoicestatus'" in f.message and "'lookup', 'invoice', 'status'" in f.message
    assert "kebab-case" in f.hint
    fixed = _lint(replace(skill, id="lookup-invoice-status"))
    assert "id-not-searchable" not in _codes(fixed)


def test_memory_id_of_numbers_and_stopwords() -> None:
    report = _lint(memories=(Memory("inc-2024-117", "Database failover took 14 minutes"),))
    (f,) = [f for f in report.findings if f.code == "id-not-searchable"]
    assert f.kind == "memory" and "recall([id])" in f.message


def test_stopword_only_name_and_description() -> None:
    report = _lint(Skill("triage-guide", "Help", "Use this first", "Triage incoming tickets."))
    assert sorted(_codes(report, "triage-guide")) == [
        "stopword-only-description",
        "stopword-only-name",
    ]
    name = next(f for f in report.findings if f.code == "stopword-only-name")
    assert "'help' (a stopword)" in name.message


def test_entry_no_search_can_reach() -> None:
    report = _lint(
        Skill("ui", "UI", "", "a b c 1 2 3"),
        memories=(Memory("x", "ok 42"),),
    )
    unreachable = [(f.kind, f.entry_id) for f in report.findings if f.code == "unreachable"]
    assert unreachable == [("skill", "ui"), ("memory", "x")]
    # A reachable entry is not reported: one real word is enough.
    assert "unreachable" not in _codes(_lint(Skill("ui", "UI toolkit", "", "")))


def test_key_terms_beyond_the_content_cut() -> None:
    intro = "Overview of the deployment process for services. " * 13  # > 600 characters
    tail = "\n## Rollback\nTo rollback, run the rollback job and verify the canary."
    skill = Skill("deploy-guide", "Deploy guide", "Deploying services", intro + tail)
    report = _lint(skill)
    (f,) = [f for f in report.findings if f.code == "terms-beyond-cut"]
    assert f.severity == "info" and "'rollback'" in f.message and "600" in f.message
    # Mentioned in the description, the word is indexed: no finding.
    fixed = _lint(replace(skill, description="Deploying services and rollback"))
    assert "terms-beyond-cut" not in _codes(fixed)


def test_skills_competing_for_the_same_search() -> None:
    web = Skill("deploy-web", "Deploy", "Deploy the web app", "steps")
    api = Skill("deploy-api", "Deploy", "Deploy the API", "steps")
    report = _lint(web, api)
    comp = {f.entry_id: f for f in report.findings if f.code == "competing-skills"}
    assert set(comp) == {"deploy-web", "deploy-api"}
    assert comp["deploy-web"].related == ("deploy-api",)
    assert "ties with it and loses on id order" in comp["deploy-web"].message
    assert "wins only on id order" in comp["deploy-api"].message
    distinct = _lint(replace(web, name="Deploy web app"), replace(api, name="Deploy API"))
    assert "competing-skills" not in _codes(distinct)
    assert "competing-skills" not in _codes(_lint(web, api, competition=False))


def test_index_size_against_a_settable_budget() -> None:
    report = _lint()
    assert report.index_chars > 0
    assert report.index_tokens == -(-report.index_chars // 4)
    assert "index-over-budget" not in _codes(report)
    tight = _lint(budget_tokens=report.index_tokens - 1)
    (f,) = [f for f in tight.findings if f.code == "index-over-budget"]
    assert f.kind == "catalog" and f.entry_id is None
    assert "'incident-response'" in f.hint  # the longest line is named first
    assert "index-over-budget" not in _codes(_lint(budget_tokens=report.index_tokens))


def test_findings_are_ordered_and_serialisable() -> None:
    report = _lint(
        Skill("ui", "UI", "", ""),
        Skill("lookupThing", "Thing lookup", "Finds things", "x"),
        memories=(Memory("inc-1", "Disk full on db-2"),),
    )
    severities = [f.severity for f in report.findings]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    data = report.to_json()
    assert data["counts"] == report.counts()
    assert {f["code"] for f in data["findings"]} <= set(CODES)
    for f in report.findings:
        assert f.severity == CODES[f.code]
        assert f.hint and f.message


def test_control_and_invisible_characters_in_ids_and_names() -> None:
    """Issue #15: `lint` said nothing of an id holding a terminal escape, a bidi override
    or a zero-width space (two ids that look the same, or a retitled terminal)."""
    report = _lint(
        Skill("deploy\x1b]0;pwned\x07", "Deploy steps", "Steps for shipping deploys", "x"),
        Skill("rollback-plan", "Roll\u202eback plan", "How to roll back a release", "x"),
        memories=(Memory("mem\u200b:vault", "Vault tokens rotate every 30 days"),),
    )
    hidden = [f for f in report.findings if f.code == "invisible-characters"]
    assert [(f.kind, f.entry_id, f.field, f.severity) for f in hidden] == [
        ("skill", "deploy\x1b]0;pwned\x07", "id", "warning"),
        ("skill", "rollback-plan", "name", "warning"),
        ("memory", "mem\u200b:vault", "id", "warning"),
    ]
    assert "2 control or invisible characters (\\x1b, \\x07)" in hidden[0].message
    assert "stored as 'deploy\\x1b]0;pwned\\x07'" in hidden[0].message
    assert "(\\u202e), stored as 'Roll\\u202eback plan'" in hidden[1].message
    assert "\\u200b" in hidden[2].message
    for f in hidden:  # the message itself holds no raw control character
        assert f.message.isprintable() and f.hint.isprintable()
    clean = _lint(Skill("deploy-steps", "Deploy steps\tv2", "Steps for shipping", "x"))
    assert "\\x09" in next(f.message for f in clean.findings if f.code == "invisible-characters")
    accented = _lint(Skill("déploi", "Dé ploi", "Ünïcode ok", "x"))
    assert "invisible-characters" not in _codes(accented)
