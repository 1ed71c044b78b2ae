"""Applying masking strategies (which detected spans to mask) and TAB-format mask output.

The strategies themselves are modules of :mod:`sanitizer.recognizer.strategies`, found through
``strategy_registry``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from sanitizer.recognizer.registry import strategy_registry
from sanitizer.types import EntitySpan

__all__ = [
    "apply_strategy",
    "document_masker",
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


class DocumentMasker(Protocol):
    """A strategy's per-collection masker: masks one whole document, may explain itself."""

    def mask(
        self, document: Mapping[str, Any], spans: Sequence[EntitySpan]
    ) -> tuple[list[EntitySpan], dict[str, Any] | None]:
        """``(masked spans, explanation record or None)``."""
        ...


def document_masker(
    strategy: str, docs: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None
) -> DocumentMasker | None:
    """The strategy's document masker when it has one (``risk``), else ``None``.

    A strategy that needs more than the spans (the text, the other documents, settings)
    offers ``document_masker(docs, options)`` next to its ``spans -> spans`` call.
    Options given to a strategy without one are an error, not silently ignored.
    """
    func = strategy_registry.get(strategy)
    factory = getattr(func, "document_masker", None)
    if factory is None:
        if options:
            raise ValueError(
                f"strategy {strategy!r} takes no options (given: {', '.join(sorted(options))})"
            )
        return None
    masker: DocumentMasker = factory(docs, dict(options or {}))
    return masker


def sanitize_documents(
    docs: Sequence[Mapping[str, Any]],
    strategy: str,
    recognizer: SupportsPredictBatch,
    batch_size: int = 16,
    options: Mapping[str, Any] | None = None,
    explain: dict[str, Any] | None = None,
) -> dict[str, list[list[int]]]:
    """Masks in TAB's format ``{doc_id: [[start, end], ...]}`` for TAB-style documents.

    Each document needs ``doc_id`` and ``text``; other keys (annotations...) are ignored,
    except ``meta`` by strategies that read it. Offsets are character offsets into
    ``text``, sorted and disjoint. ``options`` are the strategy's settings (``risk`` only);
    when ``explain`` is a dict, strategies that explain their masks fill it by doc id.
    """
    masker = document_masker(strategy, docs, options)
    out: dict[str, list[list[int]]] = {}
    for i in range(0, len(docs), batch_size):
        chunk = docs[i : i + batch_size]
        predictions = recognizer.predict_batch([str(d["text"]) for d in chunk])
        for doc, spans in zip(chunk, predictions, strict=True):
            doc_id = str(doc["doc_id"])
            if masker is None:
                masked = apply_strategy(strategy, spans)
            else:
                masked, record = masker.mask(doc, spans)
                if explain is not None and record is not None:
                    explain[doc_id] = record
            out[doc_id] = [[s.start, s.end] for s in masked]
    return out


def sanitize_file(
    input_path: str | Path,
    output_path: str | Path,
    strategy: str,
    recognizer: SupportsPredictBatch | None = None,
    options: Mapping[str, Any] | None = None,
    explain_path: str | Path | None = None,
) -> dict[str, list[list[int]]]:
    """Read TAB-format documents (JSON list with ``doc_id`` and ``text``), write their masks.

    Builds the default recognizer when none is given. ``options`` are the strategy's
    settings (see :func:`sanitize_documents`). Side effects: writes ``output_path`` (UTF-8
    JSON) and, when given, ``explain_path`` (``{doc_id: explanation}``, empty for strategies
    that do not explain). Returns the masks that were written.
    """
    docs = json.loads(Path(input_path).read_text(encoding="utf-8"))
    if not isinstance(docs, list) or not all(
        isinstance(d, dict) and "doc_id" in d and "text" in d for d in docs
    ):
        raise ValueError(f"{input_path}: expected a JSON list of objects with doc_id and text")
    if recognizer is None:
        from sanitizer.recognizer.pipeline import build_recognizer

        recognizer = build_recognizer()
    explain: dict[str, Any] = {}
    masks = sanitize_documents(docs, strategy, recognizer, options=options, explain=explain)
    Path(output_path).write_text(json.dumps(masks, indent=1), encoding="utf-8")
    if explain_path is not None:
        Path(explain_path).write_text(
            json.dumps(explain, indent=1, ensure_ascii=False), encoding="utf-8"
        )
    return masks
