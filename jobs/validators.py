"""Checks shared by the parameter validators of the job kinds (owned by the apps)."""

from __future__ import annotations

from typing import Any

from jobs.services import JobStateError


def id_param(value: Any, key: str) -> int:
    """An object id a client gave: an integer, not a boolean or a string."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise JobStateError(f"{key} must be an integer id")
    return value


# Documents per chunk a client may ask for when a job fans out (JOBS_CHUNK_DOCUMENTS
# is the default): 1 spreads finest, the upper bound keeps a chunk's run bounded.
CHUNK_SIZE_BOUNDS = (1, 10_000)


def chunk_size_param(params: dict[str, Any]) -> None:
    int_param(params, "chunk_size", *CHUNK_SIZE_BOUNDS)


def int_param(params: dict[str, Any], key: str, low: int, high: int) -> None:
    """An optional integer parameter within ``low``..``high``."""
    value = params.get(key)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise JobStateError(f"{key} must be an integer from {low} to {high}")
