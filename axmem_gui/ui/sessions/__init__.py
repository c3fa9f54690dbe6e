"""Recorded agent sessions in the GUI: list, timeline viewer, runs, replay, rerun,
compare, what-if and usage analytics (the feature: `controller.SESSIONS`)."""
