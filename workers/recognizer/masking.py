"""Masking strategies (which detected spans to mask) and TAB-format mask output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from workers.recognizer.registry import masking_strategy, strategy_registry
from workers.types import EntitySpan

# Seed 001's "mask most specific" baseline: the categories TAB annotators masked most often.
MOST_SPECIFIC_LABELS = frozenset({"CODE", "PERSON", "DATETIME", "LOC", "QUANTITY"})


class SupportsPredictBatch(Protocol):
    """What ``sanitize_documents`` needs from a recognizer."""

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        """Spans for each text."""
        ...


@masking_strategy("mask-all")
def mask_all(spans: Sequence[EntitySpan]) -> list[EntitySpan]:
    """Mask every detected entity."""
    return list(spans)


@masking_strategy("most-specific")
def mask_most_specific(spans: Sequence[EntitySpan]) -> list[EntitySpan]:
    """Mask only CODE, PERSON, DATETIME, LOC and QUANTITY entities."""
    return [s for s in spans if s.label in MOST_SPECIFIC_LABELS]


def apply_strategy(strategy: str, spans: Sequence[EntitySpan]) -> list[EntitySpan]:
    """Run the registered strategy ``strategy`` (``KeyError`` if unknown)."""
    func = strategy_registry.get(strategy)
    return list(func(spans))  # type: ignore[call-overload]


def sanitize_documents(
    docs: Sequence[Mapping[str, Any]],
    strategy: str,
    recognizer: SupportsPredictBatch,
    batch_size: int = 16,
) -> dict[str, list[list[int]]]:
    """Masks in TAB's format ``{doc_id: [[start, end], ...]}`` for TAB-style documents.

    Each document needs ``doc_id`` and ``text``; other keys (annotations...) are ignored.
    Offsets are character offsets into ``text``, sorted and disjoint.
    """
    strategy_registry.get(strategy)  # fail before doing any work
    out: dict[str, list[list[int]]] = {}
    for i in range(0, len(docs), batch_size):
        chunk = docs[i : i + batch_size]
        predictions = recognizer.predict_batch([str(d["text"]) for d in chunk])
        for doc, spans in zip(chunk, predictions, strict=True):
            out[str(doc["doc_id"])] = [[s.start, s.end] for s in apply_strategy(strategy, spans)]
    return out
