"""setuptools build hook: ship the top-level `resources/` folder inside the package.

The styles and icons live at the top of the repository (`resources/`), outside the
`axmem_gui` package, so that designers find them and the PyInstaller spec can take them
as they are. An installed wheel has no repository around it, so `build_py` copies the
folder to `axmem_gui/resources/`, where `axmem_gui.ui.resources.resources_dir` looks first.

Listed as `[tool.setuptools.cmdclass] build_py` in pyproject.toml. setuptools loads it by
file path as `packaging.wheel_resources`; the `packaging/` folder deliberately has no
`__init__.py`, so it never shadows the `packaging` library on `sys.path`.

The resource files are reported as package data, so an sdist carries them too, and this
file is reported as a source file, so a wheel built from that sdist gets them as well.
An editable install needs none of this: the package finds `<repo>/resources` directly.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools.command.build_py import build_py

#: Where the folder lands in the installed package, and where it comes from.
RESOURCE_PACKAGE = "axmem_gui.resources"
SOURCE_DIR = "resources"
_IGNORED_PARTS = ("__pycache__", ".DS_Store")


def resource_files(source_dir: str = SOURCE_DIR) -> list[str]:
    """Every file under `source_dir`, as sorted POSIX paths relative to it."""
    root = Path(source_dir)
    if not root.is_dir():
        raise FileNotFoundError(
            f"{source_dir}/ not found next to pyproject.toml: the app's styles and icons "
            "must be in the source tree to build a wheel"
        )
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") or part in _IGNORED_PARTS for part in p.parts)
    )


class BuildPyWithResources(build_py):
    """`build_py` that adds `resources/**` as data of `axmem_gui.resources`."""

    def _resources_entry(self) -> tuple[str, str, str, list[str]]:
        build_dir = os.path.join(self.build_lib, *RESOURCE_PACKAGE.split("."))
        return RESOURCE_PACKAGE, SOURCE_DIR, build_dir, resource_files()

    def _get_data_files(self):  # type: ignore[no-untyped-def]
        return [*super()._get_data_files(), self._resources_entry()]

    def get_data_files_without_manifest(self):  # type: ignore[no-untyped-def]
        return [*super().get_data_files_without_manifest(), self._resources_entry()]

    def get_source_files(self) -> list[str]:
        # Keeps this hook in the sdist, so building a wheel from the sdist still works.
        return [*super().get_source_files(), "packaging/wheel_resources.py"]
