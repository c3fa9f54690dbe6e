"""Import and export in the GUI: preview with conflict policies, progress and Cancel, one
undo step per import, drag and drop, and the export dialog.

The package itself imports nothing so its parts load only when used."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from axmem_gui.ui.main_window import MainWindow
    from axmem_gui.ui.transfer.actions import TransferActions


def install_transfer(window: MainWindow) -> TransferActions:
    from axmem_gui.ui.transfer.actions import install_transfer as install

    return install(window)


def install_transfer_and_lint(window: MainWindow) -> None:
    """File > Import / Export (with drag and drop), the lint panel and the Lint dock."""
    from axmem_gui.ui.lint import install_lint

    install_transfer(window)
    install_lint(window)
