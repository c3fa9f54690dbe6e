"""Versions that decide whether a recording can be replayed (prompts change between
axllm releases, so digests do)."""

from __future__ import annotations

import platform

from axmem_gui import __version__
from axmem_gui.core.session.model import Versions


def package_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version  # a slow import

    try:
        return version(name)
    except PackageNotFoundError:
        return "missing"


def runtime_versions(ax_profile: str | None = None) -> Versions:
    """What a recording names: this app, the axllm and QuickJS that ran, the search
    profile (`ax_profile`: the search that answered discover and recall) and the profile
    the prompts follow (`prompt_profile`, docs/runtimes.md: the agent is built with axllm,
    so axllm's, of the installed release)."""
    axllm = package_version("axllm")
    return Versions(
        app=__version__,
        axllm=axllm,
        quickjs=package_version("quickjs"),
        python=platform.python_version(),
        ax_profile=ax_profile,
        prompt_profile=f"axllm-{axllm}",
    )
