"""Checks shared by the parameter validators of the job kinds (owned by the apps)."""

from __future__ import annotations

from collections.abc import Iterable
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


def known_keys(params: dict[str, Any], keys: Iterable[str], *, noun: str = "parameters") -> None:
    """No parameter outside ``keys``; the error lists the others as "unknown ``noun``"."""
    unknown = set(params) - set(keys)
    if unknown:
        raise JobStateError(f"unknown {noun}: {', '.join(sorted(unknown))}")


def bool_param(params: dict[str, Any], key: str) -> None:
    """An optional boolean parameter."""
    if params.get(key) is not None and not isinstance(params[key], bool):
        raise JobStateError(f"{key} must be true or false")


# Documents a client may name in one job's ``document_ids``: bounds the list and its query.
MAX_DOCUMENT_IDS = 100_000


def document_ids_param(params: dict[str, Any], project: Any) -> None:
    """Optional ``document_ids``: a bounded list of ids of documents of ``project``.

    Queries the project's documents (``project.documents``); no project, no document.
    """
    value = params.get("document_ids")
    if value is None:
        return
    if not isinstance(value, list) or len(value) > MAX_DOCUMENT_IDS:
        raise JobStateError("document_ids must be a list of document ids")
    ids = {id_param(v, "document_ids") for v in value}
    if project is None or project.documents.filter(pk__in=ids).count() != len(ids):
        raise JobStateError("document_ids names documents outside this project")
