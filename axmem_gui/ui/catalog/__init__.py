"""The catalog feature: the skills and memories pages and every catalog editing action."""
