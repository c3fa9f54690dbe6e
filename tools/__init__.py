"""Developer tools (not shipped)."""
