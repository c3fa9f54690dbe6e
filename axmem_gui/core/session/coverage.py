"""What "identical" (a replay) and "verified" (verify) guarantee for a given file, and what
they do not check: reports say it, so an old file's missing parameters are never taken
for checked ones (docs/axsession-format.md, *What "identical" guarantees*)."""

from __future__ import annotations

from dataclasses import dataclass

from axmem_gui.core.session.model import Session


@dataclass(frozen=True)
class Coverage:
    checked: tuple[str, ...]
    not_checked: tuple[str, ...]


#: Checked for every file.
_ALWAYS = (
    "searches: every discover/recall searched again on the recorded catalog with the "
    "recorded backend and profile",
    "derived fields: each call's usage, each forward's call range, turns, context-map "
    "update record and map chain, contextMapSnapshots, warnings, status, error",
    "streamed calls: the stored response is the fold of the stored chunks",
)
#: Checked for version 2 files (the studio's runs since issue #29).
_VERSION_2 = (
    "requests: the whole provider-neutral request (messages, tools, output format, tool "
    "choice, model config) and its params (model, temperature, max tokens, stream and "
    "every other setting sent) against each call's scheme 2 digest; params derived from "
    "what was sent (wire.request), and sent for provider.model",
    "replies: each stored reply (content, function calls, finish reason, served model "
    "name, token counts) is what the recorded provider's own client reads from the recorded "
    "raw reply, read offline as the replay reads it",
    "retries: each call's attempts against its outcome, its HTTP attempts and the recorded "
    "retry policy (how many, which failures, how long each wait); its duration_ms is the "
    "sum of its attempts and waits",
    "tokens: each forward's usage is the sum of its calls' and the trace's copy is the "
    "forward's",
    "turns: one per actor call, with its outcome (ran, refused, invalid output, ...)",
    "context-map settings: the rule, what the carried map said and what applied, and the "
    "settings in every map state",
    "versions.ax_profile and search.profile agree; the search backend has its kind of profile",
)
_REPLAY_2 = (
    "replay: each call sent again through the client the recorded provider settings build "
    "(its model, defaults, structured output, streaming): the settings it makes are checked "
    "by the digest, and the agent reads that client's reading of the recorded raw reply "
    "(which must be the stored one)",
)
_REPLAY = (
    "replay: the installed axllm and QuickJS are the recorded ones; each forward's output, "
    "error, map after, loaded/used callbacks, turns, trace, action log and usage are the "
    "replayed run's; every recorded call was used",
)
#: Not checked for any file.
_NEVER = (
    "the times themselves (started_at, each attempt's duration): only their sums",
    "a file changed consistently everywhere (its raw replies and digests included): a "
    "session file carries no signature",
)
_VERSION_1_GAPS = (
    "this file is version 1 (recorded before issue #29): its calls record no params and "
    "no raw replies, and their digests cover chat_prompt, functions and response_format "
    "only; the model, the sampling settings and the tool choice are not checked, nor the "
    "stored replies against what the provider sent (a reply changed consistently with its "
    "usage, the forward's usage and the trace passes)",
    "version 1: retry histories (attempts are recorded only when one failed) and "
    "durations are not checked; no context-map settings rule was recorded (the map "
    "states' own settings applied, unchecked against agent.contextMap)",
)


_APP_VERSION_1 = (
    "params: each call's model is the provider's and the one its reply names, its stream "
    "flag the call's, and the settings it names twice (temperature, max_tokens, stream) "
    "agree with its model_config",
)
_APP_VERSION_1_GAPS = (
    "this file was recorded by your app in format version 1 (the app recorders write it): "
    "its calls record params, but the digests cover chat_prompt, functions and "
    "response_format only and no raw replies were kept, so a params change made the same "
    "in every place above (e.g. the model in params, provider and replies; a temperature "
    "in params and model_config), the tool choice and the other model_config settings "
    "are not checked, nor the stored replies against what the provider sent",
    "version 1: retry histories (attempts are recorded only when one failed) and "
    "durations are not checked; no context-map settings rule was recorded",
)


def coverage(session: Session, *, replay: bool) -> Coverage:
    """What a clean report on `session` guarantees (`replay`: a replay's, else verify's)."""
    checked = list(_ALWAYS)
    gaps = list(_NEVER)
    if session.version >= 2:
        checked += _VERSION_2
        if replay:
            checked += _REPLAY_2
    elif any(e.params is not None for e in session.exchanges):
        checked += _APP_VERSION_1
        gaps = [*_APP_VERSION_1_GAPS, *gaps]
    else:
        gaps = [*_VERSION_1_GAPS, *gaps]
    if replay:
        checked += _REPLAY
    else:
        gaps.append("the prompts the agent sends, its trace and outputs: `axmem replay` runs it")
    return Coverage(tuple(checked), tuple(gaps))


def coverage_json(found: Coverage | None) -> dict[str, list[str]]:
    """A report's `checked` and `not_checked` (none without a coverage)."""
    if found is None:
        return {}
    return {"checked": list(found.checked), "not_checked": list(found.not_checked)}


def render_coverage(found: Coverage) -> str:
    lines = ["checked:"] + [f"  - {c}" for c in found.checked]
    lines += ["not checked:"] + [f"  - {c}" for c in found.not_checked]
    return "\n".join(lines) + "\n"
