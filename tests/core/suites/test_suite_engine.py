"""Suites run through the real Ax-exact search (`axmem_gui.core.ax`)."""

from __future__ import annotations

from importlib import resources

from axmem_gui.core.catalog import Memory, Skill, make_catalog
from axmem_gui.core.formats import catalog_from_json_text
from axmem_gui.core.suites import Suite, SuiteCase, run_suite, suites_from_json_text


def _sample(name: str) -> str:
    return (resources.files("axmem_gui") / "sample" / name).read_text(encoding="utf-8")


def test_every_sample_case_passes_against_the_sample_catalog() -> None:
    catalog = catalog_from_json_text(_sample("catalog.json"))
    (suite,) = suites_from_json_text(_sample("suites.json"))
    result = run_suite(suite, catalog)
    failures = {c.name: c.reasons for c in result.cases if not c.passed}
    assert failures == {}
    assert result.engine == "ax 24.0.21"
    summary = result.summary
    assert summary.total == len(suite.cases) >= 22
    assert summary.mean_recall_at_k == 1.0
    assert summary.mrr is not None and 0.5 <= summary.mrr <= 1.0
    assert set(result.by_kind) == {"discover", "recall"}
    # Every must-include id got a rank within k, and it is recorded.
    for case in result.cases:
        assert all(r is not None and r <= case.k for r in case.ranks.values()), case.name


THREE = make_catalog(
    [
        Skill("incident-response", "Incident response",
              "How to acknowledge, triage, and escalate incidents", "Page, triage, escalate."),
        Skill("release-checklist", "Release checklist",
              "Steps for shipping a new package release safely", "Tag, build, publish."),
        Skill("style-guide", "Writing style guide",
              "Tone and formatting rules for customer-facing docs", "Be plain."),
    ],
    [
        Memory("deploy-window", "Production deploys are only allowed on Tuesday afternoons."),
        Memory("deploy-owner", "Deploys are owned by the platform team."),
        Memory("user-prefs", "User prefers dark mode."),
    ],
)  # fmt: skip


def _suite(*cases: SuiteCase) -> Suite:
    return Suite("t", cases)


def test_ax_semantics_show_through_the_suite() -> None:
    result = run_suite(
        _suite(
            # 'ship' never matches 'shipping' (no stemming); 'release' still finds it.
            SuiteCase("docs query", "discover", ("how do I ship a release",),
                      must_include=("release-checklist",), k=1),
            # Every token is a stopword: nothing comes back, so the inclusion fails.
            SuiteCase("stopwords", "discover", ("task help fix",),
                      must_include=("incident-response",)),
            # A camelCase search is one token and does not hit the kebab id's parts.
            SuiteCase("camel", "discover", ("styleGuide",), must_include=("style-guide",)),
        ),
        THREE,
    )  # fmt: skip
    docs, stop, camel = result.cases
    assert docs.passed and docs.returned == ("release-checklist",)
    assert not stop.passed and stop.returned == ()
    assert stop.reasons == ("missing 'incident-response': not returned",)
    assert not camel.passed and camel.returned == ()


def test_loaded_memories_are_not_recalled_again() -> None:
    fresh = SuiteCase("fresh", "recall", ("deploys",), must_include=("deploy-window",))
    loaded = SuiteCase(
        "loaded",
        "recall",
        ("deploys",),
        must_include=("deploy-owner",),
        must_exclude=("deploy-window",),
        loaded=(" deploy-window ",),  # inputs.memories ids are trimmed
    )
    result = run_suite(_suite(fresh, loaded), THREE)
    first, second = result.cases
    assert set(first.returned) == {"deploy-window", "deploy-owner"}
    assert second.passed and second.returned == ("deploy-owner",)


def test_discover_keeps_two_per_string_and_recall_three() -> None:
    many = make_catalog(
        [Skill(f"s{i}", f"Deploy guide {i}", content="deploy") for i in range(5)],
        [Memory(f"m{i}", "deploy fact") for i in range(5)],
    )
    result = run_suite(
        _suite(
            SuiteCase("d", "discover", ("deploy",), must_include=("s0",)),
            SuiteCase("r", "recall", ("deploy", "fact"), must_include=("m0",)),
        ),
        many,
    )
    d, r = result.cases
    assert len(d.returned) == 2 and d.k == 2
    assert len(r.returned) == 3 and r.k == 6  # both strings hit the same top 3


def test_indexed_and_plain_rankers_return_the_same_ids() -> None:
    from axmem_gui.core.suites import ax_search_call

    catalog = catalog_from_json_text(_sample("catalog.json"))
    (suite,) = suites_from_json_text(_sample("suites.json"))
    indexed = run_suite(suite, catalog, ax_search_call(indexed=True))
    plain = run_suite(suite, catalog, ax_search_call(indexed=False))
    assert [c.returned for c in indexed.cases] == [c.returned for c in plain.cases]
