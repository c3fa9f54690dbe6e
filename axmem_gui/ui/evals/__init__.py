"""Trigger evals in the GUI: eval sets, runs on a real model, figures, comparisons."""

from axmem_gui.ui.evals.install import install_evals_view

__all__ = ["install_evals_view"]
