"""Live catalog lint in the GUI: a panel under the skill / memory form and a Lint dock.

The package itself imports nothing, so its small modules (severity icons, models) can be
used by other views without pulling in the window wiring."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from axmem_gui.ui.lint.install import LintFeature
    from axmem_gui.ui.main_window import MainWindow


def install_lint(window: MainWindow) -> LintFeature:
    from axmem_gui.ui.lint.install import install_lint as install

    return install(window)
