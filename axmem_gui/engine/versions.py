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
    profile."""
    return Versions(
        app=__version__,
        axllm=package_version("axllm"),
        quickjs=package_version("quickjs"),
        python=platform.python_version(),
        ax_profile=ax_profile,
    )
