"""Ax Memory & Skills Studio: author, preview, test and replay Ax skill and memory catalogs."""

__version__ = "0.1.0"
