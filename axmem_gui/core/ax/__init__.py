"""core/ax layer."""
