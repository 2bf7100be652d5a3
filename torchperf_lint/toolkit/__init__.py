"""Helpers rules share: name resolution and torch-specific matching."""
