"""Recorded agent sessions: the `.axsession.json` format, replay cursor, comparison and
what-if retrieval. Pure: no axllm, no IO beyond what a caller hands in."""
