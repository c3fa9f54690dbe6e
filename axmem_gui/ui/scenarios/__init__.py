"""The scenarios page: tasks, preset entries and turns of discover / recall calls."""
