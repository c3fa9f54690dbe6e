"""Versions that decide whether a recording can be replayed (prompts change between
axllm releases, so digests do)."""

from __future__ import annotations

import platform
from collections.abc import Mapping
from typing import Any

from axmem_gui import __version__


def package_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version  # a slow import

    try:
        return version(name)
    except PackageNotFoundError:
        return "missing"


def runtime_versions(ax_profile: str | None = None) -> dict[str, str | None]:
    """`ax_profile`: the profile of the search that answered discover and recall.
    `prompt_profile`: the profile the prompts follow (docs/runtimes.md): the agent is
    built with axllm, so axllm's, of the installed release."""
    axllm = package_version("axllm")
    return {
        "app": __version__,
        "axllm": axllm,
        "quickjs": package_version("quickjs"),
        "python": platform.python_version(),
        "ax_profile": ax_profile,
        "prompt_profile": f"axllm-{axllm}",
    }


def prompt_profile_of(doc: Mapping[str, Any]) -> str:
    """The profile a session's prompts follow: `versions.prompt_profile`, or for a file
    written before that key, axllm's of the release that recorded it."""
    versions = doc.get("versions")
    versions = versions if isinstance(versions, Mapping) else {}
    named = versions.get("prompt_profile")
    if isinstance(named, str) and named:
        return named
    return f"axllm-{versions.get('axllm')}"
