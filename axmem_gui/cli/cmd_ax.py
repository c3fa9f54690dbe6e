"""`axmem render`, `axmem search`, `axmem simulate`, `axmem conformance`: the Ax-exact
renderers and catalog search, headless.

Output convention: text commands print exactly the text Ax renders followed by ONE newline
(the newline is not part of Ax's text). When Ax would render nothing (no skill loaded, every
hint suppressed...), nothing is printed on stdout and a note goes to stderr; the exit code
is still 0. `--json` prints machine-readable JSON instead. Bad input exits with code 2 and
one `axmem: error: ...` line naming the file, entry and field.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from axmem_gui.cli.common import (
    add_workspace_arg,
    counted,
    print_json,
    read_text_file,
    write_report,
)
from axmem_gui.core import jsontext
from axmem_gui.core.ax.axllm_search import AxllmSearch
from axmem_gui.core.ax.conformance import run_cases
from axmem_gui.core.ax.explain import explain
from axmem_gui.core.ax.profile import (
    AXLLM_PROFILE,
    DEFAULT_AX_VERSION,
    TS_PROFILE,
    AxProfile,
    load_profile,
    search_profile,
)
from axmem_gui.core.ax.ranking import RankResult
from axmem_gui.core.ax.render import (
    LOADED_SKILLS_TITLE,
    MEMORIES_TITLE,
    RELEVANCE_HINTS_TITLE,
    StageConfig,
    render_loaded_skills,
    render_memories,
    render_skills_section,
    user_turn_field,
)
from axmem_gui.core.ax.search import (
    MemorySearch,
    SearchCall,
    SkillSearch,
    compute_relevance_hints,
    relevance_options,
)
from axmem_gui.core.ax.simulate import Simulation, simulate
from axmem_gui.core.ax.state import LoadedSkills
from axmem_gui.core.catalog import Catalog, search_of
from axmem_gui.core.errors import InputError
from axmem_gui.core.jsout import json_dumps
from axmem_gui.core.printable import printable
from axmem_gui.core.scenarios import scenario_from_document
from axmem_gui.services.catalogs import resolve_catalog
from axmem_gui.services.files import write_file_atomic
from axmem_gui.services.scenarios import simulate_workspace_scenario_at

RUNTIMES = {"javascript": "JavaScript", "python": "Python"}
PROFILE_HELP = (
    f"the runtime profile to reproduce: {TS_PROFILE} (the TypeScript @ax-llm/ax, default; "
    f"also written {DEFAULT_AX_VERSION}) or {AXLLM_PROFILE} (axllm, what the studio's own "
    "runs send)"
)


# --------------------------------------------------------------------------- helpers


def _add_source_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--catalog",
        metavar="FILE.json",
        type=Path,
        default=None,
        help="Ax catalog JSON ({skills, memories}, {skillsCatalog, memoriesCatalog} or a "
        "list of skills); mutually exclusive with --workspace",
    )
    add_workspace_arg(group)  # type: ignore[arg-type]
    parser.add_argument("--ax-version", default=DEFAULT_AX_VERSION, help=PROFILE_HELP)


def _catalog(args: argparse.Namespace) -> Catalog:
    return resolve_catalog(args.catalog, args.workspace)


def _ids(raw: str | None) -> list[str] | None:
    if raw is None:
        return None
    return [part for part in raw.split(",") if part != ""]


def _read_json(path: Path, what: str) -> Any:
    text = read_text_file(path, what)
    return jsontext.loads(text, str(path))


def _emit(text: str | None, empty_note: str) -> int:
    if text is None:
        print(f"axmem: {empty_note}", file=sys.stderr)
        return 0
    sys.stdout.write(text + "\n")
    return 0


def _number(value: float) -> str:
    """A float as JavaScript prints it (1 rather than 1.0; full precision otherwise)."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


# --------------------------------------------------------------------------- render


def _stage_config(args: argparse.Namespace, catalog: Catalog, profile: AxProfile) -> StageConfig:
    hints_on = not args.no_relevance_ranking and bool(catalog.skills or catalog.memories)
    return StageConfig(
        runtime_language=RUNTIMES[args.runtime],
        agent_inputs=tuple(_ids(args.agent_inputs) or ()),
        memories_mode=bool(catalog.memories),
        relevance_hints=hints_on,
        skill_usage=args.skill_usage,
        context_map=args.context_map,
    )


def _render_index(args: argparse.Namespace) -> int:
    profile = load_profile(args.ax_version)
    catalog = _catalog(args)
    section = render_skills_section(
        catalog.skills, args.stage, profile, _stage_config(args, catalog, profile)
    )
    if section is None:
        return _emit(None, "the catalog has no skills: Ax renders no skills section")
    return _emit(section.index_block if args.index_only else section.text, "")


def _pick(entries: tuple[Any, ...], ids: list[str] | None, kind: str) -> list[Any]:
    if ids is None:
        return list(entries)
    by_id = {e.id: e for e in entries}
    missing = [i for i in ids if i not in by_id]
    if missing:
        listed = ", ".join(map(repr, missing))
        raise InputError(f"--ids: no {kind} with id {listed} in the catalog")
    return [by_id[i] for i in ids]


def _render_loaded_skills(args: argparse.Namespace) -> int:
    profile = load_profile(args.ax_version)
    skills = _pick(_catalog(args).skills, _ids(args.ids), "skill")
    value = render_loaded_skills(LoadedSkills().ingest(skills), profile)
    text = value if args.value_only else user_turn_field(LOADED_SKILLS_TITLE, value)
    return _emit(text, "no valid skill to load: Ax omits the Loaded Skills field")


def _render_memories(args: argparse.Namespace) -> int:
    profile = load_profile(args.ax_version)
    memories = _pick(_catalog(args).memories, _ids(args.ids), "memory")
    value = render_memories(memories, profile)
    text = value if args.value_only else user_turn_field(MEMORIES_TITLE, value)
    return _emit(text, "no memory loaded: Ax omits the Memories field")


def _render_hints(args: argparse.Namespace) -> int:
    profile = load_profile(args.ax_version)
    catalog = _catalog(args)
    ranking: Any = True
    if args.ranking is not None:
        ranking = jsontext.loads(args.ranking, "--ranking")
        if not isinstance(ranking, bool | dict):
            raise InputError("--ranking: expected false, true or an object like {\"topK\": 1}")
    if profile.is_axllm:
        hints = AxllmSearch(catalog.skills, catalog.memories, profile).hints(
            args.task,
            ranking,
            _ids(args.ids) or (),
            has_skills=bool(catalog.skills),
            has_memories=bool(catalog.memories),
        )
    else:
        hints = compute_relevance_hints(
            args.task,
            SkillSearch.indexed(catalog.skills, profile) if catalog.skills else None,
            MemorySearch.indexed(catalog.memories, profile) if catalog.memories else None,
            relevance_options(ranking, profile, "--ranking"),
            _ids(args.ids) or (),
        )
    if args.json:
        text = hints.text(profile)
        print_json({"enabled": hints.enabled, "events": hints.events(), "text": text})
        return 0
    value = hints.text(profile)
    text = value if args.value_only else user_turn_field(RELEVANCE_HINTS_TITLE, value)
    return _emit(text, "every shortlist is suppressed: Ax omits the Relevance Hints field")


# --------------------------------------------------------------------------- search


def _format_result(result: RankResult, out: list[str]) -> None:
    out.append(f"search {json_dumps(result.query)}")
    out.append(f"  tokens: {' '.join(result.tokens) if result.tokens else '(none)'}")
    for rank, entry in enumerate(result.ranked, 1):
        out.append(
            f"  {rank}. {entry.id}  score={_number(entry.score)} raw={_number(entry.raw)} "
            f"coverage={_number(entry.coverage)} matched={','.join(entry.matched_terms)}"
        )
    if not result.ranked:
        why = result.suppression.value if result.suppression else "no result"
        out.append(f"  (nothing: {why})")


def _format_call(call: SearchCall) -> str:
    out: list[str] = []
    if call.domain == "memories":
        loaded = ", ".join(call.already_loaded_ids) or "(none)"
        out.append(f"already loaded: {loaded}")
    for result in call.per_query:
        _format_result(result, out)
    out.append(f"result ids: {', '.join(call.result_ids) if call.result_ids else '(none)'}")
    return "\n".join(out)


def _search(args: argparse.Namespace) -> int:
    profile = load_profile(args.ax_version)
    catalog = _catalog(args)
    loaded = _ids(args.loaded) or []
    call: SearchCall
    search: SkillSearch | MemorySearch
    if profile.is_axllm:
        return _axllm_search(args, profile, catalog, loaded)
    if args.domain == "skills":
        if not catalog.skills:
            raise InputError("the catalog has no skills to discover")
        search = SkillSearch.indexed(catalog.skills, profile)
        call, _ = search.discover(list(args.queries))
        if loaded:
            print("axmem: note: discover does not exclude loaded skills; --loaded ignored",
                  file=sys.stderr)
    else:
        if not catalog.memories:
            raise InputError("the catalog has no memories to recall")
        search = MemorySearch.indexed(catalog.memories, profile)
        call, _ = search.recall(list(args.queries), loaded)
    explanations = [
        explain(search, args.explain, query, already_loaded_ids=loaded)
        for query in call.queries
    ] if args.explain else []
    if args.json:
        out = {"domain": call.domain, **call.to_json()}
        if explanations:
            out["explain"] = [e.to_json() for e in explanations]
        print_json(out)
        return 0
    text = _format_call(call)
    for e in explanations:
        text += f"\nwhy {e.entry_id!r} for {json_dumps(e.query)}: {e.reason}"
    write_report(text + "\n")
    return 0


def _axllm_search(
    args: argparse.Namespace, profile: AxProfile, catalog: Catalog, loaded: list[str]
) -> int:
    """axllm's built-in search (what axllm does without a host search)."""
    if args.explain:
        raise InputError(f"--explain explains the Ax search; {profile.name} has none to explain")
    search = AxllmSearch(catalog.skills, catalog.memories, profile)
    if args.domain == "skills":
        if not catalog.skills:
            raise InputError("the catalog has no skills to discover")
        call, _ = search.discover(list(args.queries))
    else:
        if not catalog.memories:
            raise InputError("the catalog has no memories to recall")
        call, _ = search.recall(list(args.queries), loaded)
    if args.json:
        print_json({"domain": call.domain, **call.to_json()})
        return 0
    write_report(_format_call(call) + "\n")
    return 0


# --------------------------------------------------------------------------- simulate


def _format_simulation(sim: Simulation) -> str:
    """The simulation report: the prompt sections and turn fields exactly as Ax renders
    them (byte-exact, like `render`); the report's own lines escaped for the terminal."""
    out: list[str] = []
    if not sim.turns:  # refused before any stage ran (an empty task)
        out.extend(printable(f"=== error: {e}") for e in sim.errors)
    for label, section in (
        ("executor", sim.executor_section),
        ("distiller", sim.distiller_section),
    ):
        if section is not None:
            out.append(f"=== {label} system prompt: skills section")
            out.append(section.text)
    for turn in sim.turns:
        out.append(f"=== executor turn {turn.index + 1}")
        fields = [
            user_turn_field(LOADED_SKILLS_TITLE, turn.loaded_skills),
            user_turn_field(MEMORIES_TITLE, turn.memories),
            user_turn_field(RELEVANCE_HINTS_TITLE, turn.relevance_hints),
        ]
        shown = [f for f in fields if f is not None]
        out.append("\n\n".join(shown) if shown else "(no catalog fields)")
        for call in (turn.discover, turn.recall):
            if call is not None:
                verb = search_of(call.domain)
                queries = json_dumps(list(call.queries))
                ids = ", ".join(call.result_ids) or "(none)"
                out.append(printable(f"--- {verb}({queries}) -> {ids}"))
        out.extend(printable(f"--- error: {e}") for e in turn.errors)
    out.append("=== callbacks")
    for name, value in (
        ("onLoadedSkills", [list(p) for p in sim.on_loaded_skills]),
        ("onLoadedMemories", [list(p) for p in sim.on_loaded_memories]),
        ("relevance_ranking events", sim.hints.events()),
    ):
        out.append(printable(f"{name}: {json_dumps(value)}"))
    return "\n".join(out)


def _simulate(args: argparse.Namespace) -> int:
    profile = load_profile(args.ax_version)
    if args.scenario_name is not None:
        # A workspace scenario: its catalog is the workspace's, never a --catalog file.
        if args.catalog is not None or args.scenario is not None:
            raise InputError(
                "--scenario NAME takes the scenario and the catalog from --workspace; "
                "give either SCENARIO.json or --scenario, and no --catalog"
            )
        scenario, sim = simulate_workspace_scenario_at(
            args.workspace, args.scenario_name, args.ax_version
        )
    else:
        if args.scenario is None:
            raise InputError("give a SCENARIO.json file or --scenario NAME (with --workspace)")
        catalog = _catalog(args)
        scenario = scenario_from_document(
            _read_json(args.scenario, "scenario file"), str(args.scenario)
        )
        # axllm's runs answer discover and recall with the studio's Ax search (host search)
        host = search_profile(profile)
        sim = simulate(
            catalog,
            scenario,
            profile,
            skill_search=SkillSearch.indexed(catalog.skills, host) if catalog.skills else None,
            memory_search=MemorySearch.indexed(catalog.memories, host)
            if catalog.memories
            else None,
        )
    if args.json:
        print_json(
            {
                "scenario": scenario.to_json(),
                "endToEnd": sim.end_to_end_json(),
                "internals": sim.internals_json(),
            }
        )
        return 0
    sys.stdout.write(_format_simulation(sim) + "\n")
    return 0


# --------------------------------------------------------------------------- conformance


def _conformance_run(args: argparse.Namespace) -> int:
    profile = load_profile(args.ax_version)
    if profile.is_axllm:
        raise InputError(
            f"conformance cases record the TypeScript package's answers; {profile.name} is "
            "checked against the installed axllm by the tests (tests/core/ax/test_axllm_profile.py)"
        )
    cases = _read_json(args.cases, "case file")
    result = run_cases(cases, profile, str(args.cases))
    text = json_dumps(result, indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
        return 0
    write_file_atomic(args.output, text, "conformance results")
    print(f"{counted(len(result['cases']), 'case')} -> {args.output}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------- registration


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _render_common(p: argparse.ArgumentParser) -> None:
    _add_source_args(p)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    render = sub.add_parser(
        "render",
        help="print the exact text Ax renders for a catalog",
        description="Print exactly the text Ax renders, followed by one newline. When Ax "
        "renders nothing, stdout stays empty (a note goes to stderr) and the exit code is 0.",
    )
    render.set_defaults(handler=lambda _a: _usage(render))
    parts = render.add_subparsers(dest="render_part", metavar="PART")

    p = parts.add_parser(
        "index",
        help="the system prompt's skills section (### Available Skills ... ### Loaded Skills)",
        description="The skills section of a stage's system prompt as the model sees it "
        "(3+ newlines collapsed, field references rewritten), followed by one newline.",
    )
    _render_common(p)
    p.add_argument("--stage", choices=("executor", "distiller"), default="executor")
    p.add_argument("--runtime", choices=tuple(RUNTIMES), default="javascript")
    p.add_argument("--index-only", action="store_true",
                   help="print only the heading and entry lines")
    p.add_argument("--agent-inputs", default="query", metavar="NAMES",
                   help="the agent's own input field names, comma-separated (default: query)")
    p.add_argument("--no-relevance-ranking", action="store_true",
                   help="the agent sets relevanceRanking: false")
    p.add_argument("--skill-usage", action="store_true", help="the agent sets onUsedSkills")
    p.add_argument("--context-map", action="store_true",
                   help="the agent has a context map (axllm's distiller then has a Context "
                   "Map field)")
    p.set_defaults(handler=_render_index)

    p = parts.add_parser("loaded-skills", help="the Loaded Skills user-turn field",
                         description="'Loaded Skills: ...' with the given catalog skills "
                         "loaded (all when --ids is absent), followed by one newline.")
    _render_common(p)
    p.add_argument("--ids", metavar="a,b", help="ids of the loaded skills, in load order")
    p.add_argument("--value-only", action="store_true", help="omit the 'Loaded Skills: ' title")
    p.set_defaults(handler=_render_loaded_skills)

    p = parts.add_parser("memories", help="the Memories user-turn field",
                         description="'Memories: ...' with the given catalog memories "
                         "loaded (all when --ids is absent), followed by one newline.")
    _render_common(p)
    p.add_argument("--ids", metavar="a,b", help="ids of the loaded memories, in load order")
    p.add_argument("--value-only", action="store_true", help="omit the 'Memories: ' title")
    p.set_defaults(handler=_render_memories)

    p = parts.add_parser("hints", help="the Relevance Hints user-turn field",
                         description="'Relevance Hints: ...' for a task (the executor's "
                         "string inputs joined by a space), followed by one newline.")
    _render_common(p)
    p.add_argument("--task", required=True, help="the text the hints rank against")
    p.add_argument("--ids", metavar="a,b", help="memory ids already loaded (not hinted)")
    p.add_argument("--ranking", metavar="JSON",
                   help='the relevanceRanking option, e.g. \'{"topK": 1, "minScore": 0}\'')
    p.add_argument("--value-only", action="store_true",
                   help="omit the 'Relevance Hints: ' title")
    p.add_argument("--json", action="store_true", help="shortlists and events as JSON")
    p.set_defaults(handler=_render_hints)

    p = sub.add_parser(
        "search",
        help="one discover (skills) or recall (memories) call, with scores",
        description="Run one discover({ skills: QUERY... }) or recall([QUERY...]) with Ax's "
        "built-in search and print, per search string, its tokens and ranked entries (id, "
        "score, raw, coverage, matched terms), then the call's result ids.",
    )
    p.add_argument("domain", choices=("skills", "memories"))
    p.add_argument("queries", metavar="QUERY", nargs="+", help="search strings of one call")
    _add_source_args(p)
    p.add_argument("--loaded", metavar="id,...",
                   help="memory ids already loaded (excluded from recall)")
    p.add_argument("--explain", metavar="ID",
                   help="also explain why this entry was or was not returned")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_search)

    p = sub.add_parser(
        "simulate",
        help="replay a scenario turn by turn: what the model sees",
        description="Replay SCENARIO.json, or the workspace scenario --scenario NAME (task, "
        "presetSkills, preloadedMemories, turns of discover/recall calls, relevanceRanking) "
        "against the catalog and print each executor turn's Loaded Skills / Memories / "
        "Relevance Hints fields and the callback payloads.",
    )
    p.add_argument("scenario", metavar="SCENARIO.json", type=Path, nargs="?", default=None)
    _add_source_args(p)
    p.add_argument("--scenario", dest="scenario_name", metavar="NAME", default=None,
                   help="a scenario stored in the workspace (instead of SCENARIO.json)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=_simulate)

    conf = sub.add_parser(
        "conformance", help="run Ax render/search conformance cases",
        description="Conformance cases for Ax rendering and search.",
    )
    conf.set_defaults(handler=lambda _a: _usage(conf))
    actions = conf.add_subparsers(dest="conformance_command", metavar="ACTION")
    p = actions.add_parser(
        "run",
        help="compute expected.json-shaped results for a cases.json",
        description="Read a case file in the format of the golden cases.json and write JSON "
        "with the structure of expected.json (tokenizer, collation, per case endToEnd and "
        "internals).",
    )
    p.add_argument("cases", metavar="CASES.json", type=Path)
    p.add_argument("-o", "--output", metavar="OUT.json", type=Path, default=None,
                   help="output file (default: stdout)")
    p.add_argument("--ax-version", default=DEFAULT_AX_VERSION,
                   help=f"Ax profile to reproduce (default {DEFAULT_AX_VERSION})")
    p.set_defaults(handler=_conformance_run)
