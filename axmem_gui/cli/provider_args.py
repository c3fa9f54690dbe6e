"""The provider options a live model call takes on the command line (`--provider`,
`--model`, the deadline and retry policy, ...), shared by `axmem run`, `rerun`,
`test-connection` and `axmem eval run`, and the ProviderSettings they make."""

from __future__ import annotations

import argparse

from axmem_gui.core.providers import (
    DEFAULT_MAX_REPLY_MIB,
    RETRY_KINDS,
    STRUCTURED_OUTPUT_MODES,
    ProviderSettings,
    parse_retry_on,
)


def add_provider_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument(
        "--provider",
        required=required,
        metavar="P",
        help="openai, anthropic, google-gemini, openai-compatible, ollama, "
        "llama-cpp, lm-studio, vllm, local (the bundled model: reuses `axmem local-model "
        "serve`, else starts it for the run), or any axllm profile",
    )
    p.add_argument("--model", metavar="M", help="model name")
    p.add_argument("--base-url", metavar="URL", help="server URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the API key (default: OS keyring, "
        "then the provider's usual variable)",
    )
    p.add_argument(
        "--structured-output",
        choices=STRUCTURED_OUTPUT_MODES,
        default="auto",
        help="structured-output mode the model supports (default: axllm's choice)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="deadline in seconds for one complete model reply, streamed or not (default 120); "
        "the model's code has its own, --code-time-limit",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=2,
        metavar="N",
        help="retries of one model call (default 2); 0 = exactly one request (axllm's own "
        "retries are folded into this policy)",
    )
    p.add_argument(
        "--retry-backoff",
        type=float,
        default=1.0,
        metavar="S",
        help="seconds before the first retry, doubling each time (default 1)",
    )
    p.add_argument(
        "--retry-max-wait",
        type=float,
        default=60.0,
        metavar="S",
        help="longest wait before a retry; a longer Retry-After gives up (default 60)",
    )
    p.add_argument(
        "--retry-on",
        default=",".join(RETRY_KINDS),
        metavar="KINDS",
        help=f"failures that are retried, comma-separated, or none (default: "
        f"{','.join(RETRY_KINDS)})",
    )
    p.add_argument(
        "--stream",
        action="store_true",
        help="ask the server for streamed (SSE) replies; the chunks are recorded",
    )
    p.add_argument(
        "--max-reply-mib",
        type=float,
        default=DEFAULT_MAX_REPLY_MIB,
        metavar="MIB",
        help=f"a model reply larger than this ends the call with an error, streamed or not "
        f"(default {DEFAULT_MAX_REPLY_MIB:g})",
    )


def provider_settings(args: argparse.Namespace) -> ProviderSettings:
    return ProviderSettings(
        provider=args.provider,
        model=args.model,
        base_url=args.base_url,
        structured_output=args.structured_output,
        api_key_env=args.api_key_env,
        timeout_s=args.timeout,
        max_retries=args.max_retries,
        retry_backoff_s=args.retry_backoff,
        retry_max_wait_s=args.retry_max_wait,
        retry_on=parse_retry_on(args.retry_on),
        stream=args.stream,
        max_reply_mib=args.max_reply_mib,
    )
