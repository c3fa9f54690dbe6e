"""Shared bits of the packaging tests: where the packaging files are, and the rule for the
external validators (run when installed; required when AXMEM_REQUIRE_VALIDATORS=1)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGING = REPO_ROOT / "packaging"
SHARE = PACKAGING / "linux" / "share"
APP_ID = "io.github.axmem.Studio"
DESKTOP_FILE = SHARE / "applications" / f"{APP_ID}.desktop"
METAINFO_FILE = SHARE / "metainfo" / f"{APP_ID}.metainfo.xml"
MIME_FILE = SHARE / "mime" / "packages" / f"{APP_ID}.xml"
WORKSPACE_MIME = "application/x-axmem-workspace"
SESSION_MIME = "application/x-axsession+json"

REQUIRE_ENV = "AXMEM_REQUIRE_VALIDATORS"

# The packaging scripts are plain scripts, not a package (packaging/ must not shadow the
# `packaging` library), so the tests import them from their folder.
if str(PACKAGING) not in sys.path:
    sys.path.insert(0, str(PACKAGING))


def external_tool(name: str, debian_package: str) -> str:
    """Path of a validator program. Missing: a skip that names the package, or a failure
    when AXMEM_REQUIRE_VALIDATORS=1 (as `make dist-check` sets)."""
    path = shutil.which(name)
    if path:
        return path
    hint = f"apt-get install {debian_package}"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{name} is not installed and {REQUIRE_ENV}=1 requires it: {hint}")
    pytest.skip(f"{name} is not installed ({hint}); {REQUIRE_ENV}=1 makes this a failure")
