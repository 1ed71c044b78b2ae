"""Shared web infrastructure at the bottom of the app layers: the API base classes,
the domain error types and upload storage. It imports no other app."""
