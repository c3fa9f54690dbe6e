"""Trigger evals in the GUI: eval sets, runs on a real model, figures, comparisons."""

from axmem_gui.ui.evals.feature import EVALS, EvalsFeature

__all__ = ["EVALS", "EvalsFeature"]
