"""Trigger evals: does the model load the right skills and memories for a user request?

`model` holds the eval sets, `report` the run records and figures, `compare` two runs side
by side, text and JUnit output. Pure: running an eval lives in services/evals.py.
"""
