"""Builders for small hand-checked TAB documents used by the evaluation tests."""

from __future__ import annotations

from typing import Any


def find(text: str, phrase: str, occurrence: int = 0) -> tuple[int, int]:
    """Offsets of the ``occurrence``-th (0-based) appearance of ``phrase`` in ``text``."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(phrase, start + 1)
    return start, start + len(phrase)


def mention(
    text: str,
    phrase: str,
    entity_id: str,
    entity_type: str,
    identifier_type: str,
    occurrence: int = 0,
) -> dict[str, Any]:
    """One TAB ``entity_mentions`` item for ``phrase``."""
    start, end = find(text, phrase, occurrence)
    return {
        "entity_type": entity_type,
        "start_offset": start,
        "end_offset": end,
        "span_text": phrase,
        "identifier_type": identifier_type,
        "entity_id": entity_id,
        "confidential_status": "NOT_CONFIDENTIAL",
    }


def tab_doc(doc_id: str, text: str, **annotators: list[dict[str, Any]]) -> dict[str, Any]:
    """A TAB document with one ``entity_mentions`` list per annotator."""
    return {
        "doc_id": doc_id,
        "text": text,
        "dataset_type": "test",
        "annotations": {name: {"entity_mentions": ms} for name, ms in annotators.items()},
    }
