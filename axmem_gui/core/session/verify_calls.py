"""What a version 2 file claims about its model calls, checked against itself: each call's
retry history, its time, its parameters and digest scheme, the token counts of its
forward, and which search made the file's searches (core.session.verify runs these with
the rest of the file checks).

A version 1 file is held to less (its calls recorded no attempts unless one failed, no
parameters, and a digest of the prompt only); `identical_covers` says what is checked
for which file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from axmem_gui.core.errors import InputError
from axmem_gui.core.providers import RetryPolicy
from axmem_gui.core.records import JsonValue, to_json_value
from axmem_gui.core.session.digest import digest_scheme
from axmem_gui.core.session.model import Attempt, Exchange, Forward, Session
from axmem_gui.core.session.payloads import config_setting, trace_usage, usage_lists
from axmem_gui.core.session.stages import ACTOR_STAGES, RESPONDER
from axmem_gui.core.session.wire_payloads import (
    finish_reason,
    params_of,
    raw_reply_facts,
    reply_tokens,
    served_model,
)

#: (where, what, recorded, recomputed): a claim the file makes and what it should be.
Found = list[tuple[str, str, JsonValue, JsonValue]]
#: (where, what is wrong): a claim that does not hold, with no value to set against it.
Problems = list[tuple[str, str]]

OK, CANCELLED = "ok", "cancelled"
#: The search backend that has an Ax profile (core.session.retrieval's), and the one
#: that has none (axllm's own ranker).
PROFILED_BACKEND, UNPROFILED_BACKEND = "axmem-ax", "axllm-builtin"


def call_time(durations_ms: Sequence[float | None], waits_s: Sequence[float | None]) -> float:
    """A call's `duration_ms` in a version 2 file: its attempts' times and the waits
    between them (the policy's planned waits; the last attempt's, a wait the user
    cancelled, is not counted). The recorder writes it so, verify recomputes it."""
    total = sum(float(d or 0) for d in durations_ms)
    total += sum(float(w or 0) * 1000 for w in waits_s[:-1])
    return round(total, 3)


def attempts_duration(attempts: Sequence[Attempt]) -> float:
    return call_time([a.duration_ms for a in attempts], [a.retry_in_s for a in attempts])


def _policy(session: Session) -> RetryPolicy | None:
    provider = session.provider
    if provider.retry_policy is None:
        return None
    try:
        return RetryPolicy.from_json(provider.retry_policy, provider.max_retries or 0)
    except (InputError, TypeError, ValueError):
        return None


def retry_problems(ex: Exchange, policy: RetryPolicy | None) -> list[str]:
    """What is wrong with a call's retry history (empty: it is consistent with itself,
    the call's outcome, its HTTP attempts and the recorded retry policy)."""
    attempts = ex.attempts or ()
    if not attempts:
        return ["the call records no attempts"]
    out = []
    last = attempts[-1]
    if ex.response is not None and last.outcome != OK:
        out.append(f"the call answered, but its last attempt says {last.outcome!r}")
    if ex.response is None and last.outcome == OK:
        out.append("the call failed, but its last attempt says 'ok'")
    for n, attempt in enumerate(attempts[:-1]):
        if attempt.outcome in (OK, CANCELLED) or attempt.retry_in_s is None:
            out.append(f"attempt {n + 1} was retried, but it says {attempt.outcome!r}")
            continue
        if policy is None:
            continue
        retry_after = attempt.error.retry_after if attempt.error is not None else None
        planned = policy.wait_before_retry(str(attempt.outcome), retry_after, n)
        if planned is None:
            out.append(
                f"attempt {n + 1} ({attempt.outcome}) was retried, which the recorded "
                f"retry policy does not allow (max_retries {policy.max_retries}, retry_on "
                f"{', '.join(policy.retry_on) or 'none'})"
            )
        elif planned != attempt.retry_in_s:
            out.append(
                f"attempt {n + 1} waited {attempt.retry_in_s} s, the recorded retry policy "
                f"waits {planned:g} s"
            )
    sent = len(ex.http_attempts or ())
    reached = sum(1 for a in attempts if a.outcome != CANCELLED)
    if not reached <= sent <= len(attempts):
        out.append(f"{len(attempts)} attempt(s) recorded, but {sent} HTTP request(s)")
    return out


def raw_reply_problems(ex: Exchange) -> list[str]:
    """What the stored response says that the recorded raw reply does not: the served
    model name, a token count, the finish reason (OpenAI-style raw replies; the replay
    reads any reply with the recorded provider's own client)."""
    if ex.wire is None or ex.response is None or ex.error is not None:
        return []
    facts = raw_reply_facts(ex.wire.response)
    if facts is None:
        return []
    out = []
    if facts.model is not None and served_model(ex.response) != facts.model:
        out.append(
            f"the stored response says model {served_model(ex.response)!r} served it, the raw "
            f"reply {facts.model!r}"
        )
    stored = reply_tokens(ex.response)
    for name, count in facts.tokens.items():
        if stored.get(name) != count:
            out.append(f"the stored response says {name} {stored.get(name)}, the raw reply {count}")
    if facts.finish is not None and finish_reason(ex.response) != facts.finish:
        out.append(
            f"the stored response's finish reason is {finish_reason(ex.response)!r}, the raw "
            f"reply's {facts.finish!r}"
        )
    return out


def _usage_of(calls: Sequence[Exchange]) -> list[JsonValue]:
    return [to_json_value(e.usage) for e in calls if e.response is not None]


def forward_usage(fw: Forward, mine: Sequence[Exchange]) -> dict[str, Any] | None:
    """A forward's `usage` as its calls add up to it (axllm counts each answered actor
    and responder call; None when the stored usage has another shape)."""
    if usage_lists(fw.usage) is None:
        return None
    actor = _usage_of([e for e in mine if e.stage in ACTOR_STAGES])
    responder = _usage_of([e for e in mine if e.stage == RESPONDER])
    return {
        "chat_log_entries": len(actor) + len(responder),
        "actor": actor,
        "responder": responder,
    }


def _exchange_claims(
    where: str,
    ex: Exchange,
    model: str | None,
    policy: RetryPolicy | None,
    found: Found,
    problems: Problems,
) -> None:
    """A version 2 call: its digest scheme, retry history, time, parameters (derived
    from what was sent, and for the provider's model) and its reply against the raw one."""
    if digest_scheme(ex.digest) != 2:
        problems.append(
            (
                f"{where}.digest",
                "a version 2 file's digest must be a 'sha256-v2:' one (it covers the whole "
                "request and its parameters)",
            )
        )
    problems += [
        (f"{where}.attempts", f"the retry history: {p}") for p in retry_problems(ex, policy)
    ]
    problems += [(f"{where}.response", p) for p in raw_reply_problems(ex)]
    if ex.attempts:
        found.append(
            (
                f"{where}.duration_ms",
                "the call's time (its attempts and waits)",
                ex.duration_ms,
                attempts_duration(ex.attempts),
            )
        )
    if ex.wire is not None:
        fallback = ex.params.model if ex.params is not None else None
        found.append(
            (
                f"{where}.params",
                "the request parameters (the settings sent)",
                to_json_value(ex.params),
                params_of(ex.request, ex.wire.request, fallback),
            )
        )
    sent_model = ex.params.model if ex.params is not None else None
    if model is not None and sent_model is not None and sent_model != model:
        problems.append(
            (
                f"{where}.params.model",
                f"the call was sent for model {sent_model!r}, the provider's is {model!r}",
            )
        )


def call_claims(session: Session) -> tuple[Found, Problems]:
    """The claims of a version 2 file's calls that do not hold, as mismatches and as
    problems; of a version 1 file, its `versions`/`search` agreement only."""
    found: Found = []
    problems: Problems = []
    search, versions = session.search, session.versions
    profiles = (search.profile if search is not None else None, versions.ax_profile)
    if None not in profiles and profiles[0] != profiles[1]:
        found.append(
            (
                "versions.ax_profile",
                "the search profile (the file names two: versions.ax_profile and search.profile)",
                profiles[1],
                profiles[0],
            )
        )
    if session.version < 2:
        problems += recorded_params_problems(session)
        return found, problems
    if search is not None:
        profiled = search.profile is not None
        if search.backend == PROFILED_BACKEND and not profiled:
            problems.append(
                ("search.profile", f"the search backend {PROFILED_BACKEND} names no profile")
            )
        if search.backend == UNPROFILED_BACKEND and profiled:
            problems.append(
                (
                    "search.profile",
                    f"the search backend {UNPROFILED_BACKEND} has no profile, "
                    f"but the file names {search.profile!r}",
                )
            )
    policy = _policy(session)
    for i, ex in enumerate(session.exchanges):
        _exchange_claims(f"exchanges[{i}]", ex, session.provider.model, policy, found, problems)
    for k, fw in enumerate(session.forwards):
        if not fw.ran:
            continue
        usage = forward_usage(fw, session.exchanges_of(fw.index))
        if usage is not None:
            found.append(
                (
                    f"forwards[{k}].usage",
                    "the forward's token usage (its calls' sum)",
                    fw.usage,
                    usage,
                )
            )
        traced = trace_usage(fw.trace)
        if traced is not None:
            found.append(
                (f"forwards[{k}].trace.usage", "the trace's token usage", traced, fw.usage)
            )
    return [f for f in found if f[2] != f[3]], problems


#: The settings a call's `params` name twice: at the top and in its `model_config`.
_SETTINGS = ("temperature", "max_tokens", "stream")


def recorded_params_problems(session: Session) -> Problems:
    """A version 1 file whose calls record `params` (the app recorders'): its digests do
    not cover them and no raw reply was kept, so they are checked against the file's other
    records of the same facts: the provider's model, the model each reply names, the
    call's stream flag, and the settings the params name twice. A change made the same in
    every place is not found (the coverage says so)."""
    out: Problems = []
    provider_model = session.provider.model
    for i, ex in enumerate(session.exchanges):
        p, where = ex.params, f"exchanges[{i}].params"
        if p is None:
            continue
        if p.model is not None and provider_model is not None and p.model != provider_model:
            out.append(
                (
                    f"{where}.model",
                    f"the call was sent for model {p.model!r}, the provider's is "
                    f"{provider_model!r}",
                )
            )
        named = served_model(ex.response) if ex.response is not None else None
        if p.model is not None and isinstance(named, str) and named != p.model:
            out.append(
                (
                    f"{where}.model",
                    f"the call was sent for model {p.model!r}, its reply names {named!r}",
                )
            )
        if p.stream is not None and ex.stream is not None and p.stream != ex.stream:
            out.append((f"{where}.stream", f"params say stream {p.stream}, the call {ex.stream}"))
        for key in _SETTINGS:
            present, value = config_setting(p.model_config, key)
            top = getattr(p, key)
            if present and top is not None and value != top:
                out.append(
                    (f"{where}.{key}", f"params say {key} {top!r}, their model_config {value!r}")
                )
    return out
