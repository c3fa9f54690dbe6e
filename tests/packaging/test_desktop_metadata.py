"""The freedesktop menu entry and AppStream metadata: well formed, consistent with the
project (ids, programs, file types, version), and accepted by the standard validators."""

from __future__ import annotations

import configparser
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from typing import Any

from axmem_gui import __version__
from tests.packaging.conftest import (
    APP_ID,
    DESKTOP_FILE,
    METAINFO_FILE,
    MIME_FILE,
    REPO_ROOT,
    SESSION_MIME,
    WORKSPACE_MIME,
    external_tool,
)

MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"
SCREENSHOT_IN_REPO = "docs/screenshots/main-window.png"


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP_FILE, encoding="utf-8")
    return parser["Desktop Entry"]


def project() -> dict[str, Any]:
    doc = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    table: dict[str, Any] = doc["project"]
    return table


def metainfo() -> ET.Element:
    return ET.parse(METAINFO_FILE).getroot()


def mime_types_declared() -> list[str]:
    root = ET.parse(MIME_FILE).getroot()
    return [t.get("type", "") for t in root.iter(f"{MIME_NS}mime-type")]


def test_desktop_entry_starts_the_gui_program_on_a_file() -> None:
    entry = desktop_entry()
    gui_program = next(iter(project()["gui-scripts"]))
    assert entry["Type"] == "Application"
    assert entry["Exec"].split() == [gui_program, "%f"]
    assert entry["TryExec"] == gui_program
    assert entry["Icon"] == APP_ID
    assert entry["Terminal"] == "false"
    assert entry["StartupWMClass"] == gui_program


def test_desktop_entry_claims_exactly_the_declared_file_types() -> None:
    claimed = [m for m in desktop_entry()["MimeType"].split(";") if m]
    assert (
        sorted(claimed) == sorted(mime_types_declared()) == sorted([WORKSPACE_MIME, SESSION_MIME])
    )


def test_desktop_file_is_named_after_the_id_the_app_announces() -> None:
    # Wayland compositors match windows to menu entries through this id.
    app_source = (REPO_ROOT / "axmem_gui" / "app.py").read_text(encoding="utf-8")
    assert f'setDesktopFileName("{APP_ID}")' in app_source
    assert DESKTOP_FILE.name == f"{APP_ID}.desktop"


def test_metainfo_names_the_app_its_programs_and_file_types() -> None:
    root = metainfo()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP_FILE.name
    assert root.findtext("metadata_license") == "CC0-1.0"
    assert root.findtext("project_license") == project()["license"]
    programs = {*project()["scripts"], *project()["gui-scripts"]}
    provides = root.find("provides")
    assert provides is not None
    assert {b.text for b in provides.findall("binary")} == programs
    assert sorted(m.text or "" for m in provides.findall("mediatype")) == sorted(
        mime_types_declared()
    )


def test_metainfo_release_is_the_package_version() -> None:
    releases = [r.get("version") for r in metainfo().iter("release")]
    assert releases and releases[0] == __version__, (
        f'add a <release version="{__version__}"> to {METAINFO_FILE.name}'
    )


def test_metainfo_screenshot_is_the_published_copy_of_the_committed_one() -> None:
    images = [i.text or "" for i in metainfo().iter("image")]
    assert images, "the metainfo must show at least one screenshot"
    for url in images:
        assert url.startswith("https://"), url
        assert url.endswith("/" + SCREENSHOT_IN_REPO), url
    assert (REPO_ROOT / SCREENSHOT_IN_REPO).is_file(), (
        f"{SCREENSHOT_IN_REPO} is referenced by the metainfo and the README but not committed"
    )


def test_desktop_file_validate_accepts_the_entry() -> None:
    tool = external_tool("desktop-file-validate", "desktop-file-utils")
    run = subprocess.run([tool, str(DESKTOP_FILE)], capture_output=True, text=True)
    assert run.returncode == 0 and not run.stdout.strip(), run.stdout + run.stderr


def test_appstreamcli_accepts_the_metainfo() -> None:
    tool = external_tool("appstreamcli", "appstream")
    run = subprocess.run(
        [tool, "validate", "--no-net", str(METAINFO_FILE)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # Infos are allowed (0.16 does not know <developer> yet); warnings and errors are not.
    assert not [line for line in run.stdout.splitlines() if line[:2] in ("W:", "E:")]
