"""Feature views installed into the main window (each feature adds its own here)."""

from __future__ import annotations

from axmem_gui.ui.contextmap import install_contextmap_view
from axmem_gui.ui.editor.actions import install_catalog_editing
from axmem_gui.ui.evals import install_evals_view
from axmem_gui.ui.main_window import MainWindow
from axmem_gui.ui.preview import install_retrieval_views
from axmem_gui.ui.sessions import install_sessions_view
from axmem_gui.ui.transfer import install_transfer_and_lint


def install_features(window: MainWindow) -> None:
    install_catalog_editing(window)
    install_contextmap_view(window)
    install_retrieval_views(window)
    install_sessions_view(window)
    install_transfer_and_lint(window)
    install_evals_view(window)
