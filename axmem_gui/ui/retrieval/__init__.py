"""The retrieval state the preview, bench, scenarios and suites share: one live index of the
catalog, below every feature that uses it."""
