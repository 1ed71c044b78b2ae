"""Applying masking strategies (which detected spans to mask) and TAB-format mask output.

The strategies themselves are modules of :mod:`sanitizer.recognizer.strategies`, found through
``strategy_registry``; the built-in ones are re-exported here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from sanitizer.recognizer.registry import strategy_registry
from sanitizer.recognizer.strategies.mask_all import mask_all
from sanitizer.recognizer.strategies.most_specific import MOST_SPECIFIC_LABELS, mask_most_specific
from sanitizer.types import EntitySpan

__all__ = [
    "MOST_SPECIFIC_LABELS",
    "apply_strategy",
    "mask_all",
    "mask_most_specific",
    "sanitize_documents",
    "sanitize_file",
]


class SupportsPredictBatch(Protocol):
    """What ``sanitize_documents`` needs from a recognizer."""

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        """Spans for each text."""
        ...


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


def sanitize_file(
    input_path: str | Path,
    output_path: str | Path,
    strategy: str,
    recognizer: SupportsPredictBatch | None = None,
) -> dict[str, list[list[int]]]:
    """Read TAB-format documents (JSON list with ``doc_id`` and ``text``), write their masks.

    Builds the default recognizer when none is given. Side effect: writes ``output_path`` (UTF-8
    JSON). Returns the masks that were written.
    """
    docs = json.loads(Path(input_path).read_text(encoding="utf-8"))
    if not isinstance(docs, list) or not all(
        isinstance(d, dict) and "doc_id" in d and "text" in d for d in docs
    ):
        raise ValueError(f"{input_path}: expected a JSON list of objects with doc_id and text")
    if recognizer is None:
        from sanitizer.recognizer.pipeline import build_recognizer

        recognizer = build_recognizer()
    masks = sanitize_documents(docs, strategy, recognizer)
    Path(output_path).write_text(json.dumps(masks, indent=1), encoding="utf-8")
    return masks
