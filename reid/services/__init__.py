"""Writes of the re-identification app (import the functions from their modules)."""
