"""Input values of the agreement code: one document and each annotator's spans on it.

An *annotator* is any hashable name (a person, a machine run, the gold standard); names
are turned into strings only when results are serialised. Spans may be given as tuples
``(start, end, identifier_type[, entity_type])``, as :class:`sanitizer.types.EntitySpan`
(``label`` is read as the entity type), or as TAB mention dicts (``start_offset``,
``end_offset``, ``identifier_type``, ``entity_type``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from sanitizer.types import IDENTIFIER_TYPES, EntitySpan

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True, order=True)
class AnnotatedSpan:
    """One annotator's span: character offsets (end exclusive) and its labels."""

    start: int
    end: int
    identifier_type: str
    entity_type: str | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"invalid span offsets {self.start}..{self.end}")
        if self.identifier_type not in IDENTIFIER_TYPES:
            raise ValueError(
                f"identifier_type {self.identifier_type!r} is not one of {IDENTIFIER_TYPES}"
            )


SpanInput = AnnotatedSpan | tuple[Any, ...] | EntitySpan | Mapping[str, Any]


def coerce_span(obj: SpanInput) -> AnnotatedSpan:
    """Turn a tuple, an ``EntitySpan`` or a TAB mention dict into an :class:`AnnotatedSpan`."""
    if isinstance(obj, AnnotatedSpan):
        return obj
    if isinstance(obj, EntitySpan):
        if obj.identifier_type is None:
            raise ValueError(f"span {obj.start}..{obj.end} has no identifier_type")
        return AnnotatedSpan(obj.start, obj.end, obj.identifier_type, obj.label or None)
    if isinstance(obj, Mapping):
        start = obj.get("start_offset", obj.get("start"))
        end = obj.get("end_offset", obj.get("end"))
        if start is None or end is None or "identifier_type" not in obj:
            raise ValueError(f"span mapping lacks offsets or identifier_type: {dict(obj)!r}")
        return AnnotatedSpan(int(start), int(end), obj["identifier_type"], obj.get("entity_type"))
    if isinstance(obj, tuple) and len(obj) in (3, 4):
        return AnnotatedSpan(int(obj[0]), int(obj[1]), *obj[2:])
    raise TypeError(f"cannot read a span from {obj!r}")


@dataclass(frozen=True)
class AnnotatedDocument:
    """A document length (and optionally its text) with every annotator's spans.

    ``counted`` marks the characters that are units at character level: the
    non-whitespace characters when the text is known, every character otherwise.
    ``_cache`` holds label arrays computed by the agreement functions (it is mutated
    in place; results do not depend on it).
    """

    doc_id: str
    length: int
    annotations: Mapping[Hashable, tuple[AnnotatedSpan, ...]]
    text: str | None = None
    counted: BoolArray = field(init=False, repr=False, compare=False)
    _cache: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.text is not None and len(self.text) != self.length:
            raise ValueError(f"document {self.doc_id!r}: text length != {self.length}")
        for name, spans in self.annotations.items():
            for span in spans:
                if span.end > self.length:
                    raise ValueError(
                        f"document {self.doc_id!r}, annotator {name!r}: span "
                        f"{span.start}..{span.end} exceeds the text length {self.length}"
                    )
        if self.text is None:
            counted = np.ones(self.length, dtype=bool)
        else:
            counted = np.fromiter(
                (not ch.isspace() for ch in self.text), dtype=bool, count=self.length
            )
        object.__setattr__(self, "counted", counted)

    @property
    def annotators(self) -> tuple[Hashable, ...]:
        """Annotator names in insertion order."""
        return tuple(self.annotations)


def make_document(
    annotations: Mapping[Any, Iterable[SpanInput]],
    *,
    text: str | None = None,
    length: int | None = None,
    doc_id: str = "",
) -> AnnotatedDocument:
    """Build a document from ``{annotator: spans}`` and either ``text`` or ``length``.

    Spans are sorted; an annotator with an empty list is an annotator who marked
    nothing (it still takes part, labelling every unit NONE).
    """
    if text is None and length is None:
        raise ValueError("give the document text or its length")
    size = len(text) if text is not None else int(length)  # type: ignore[arg-type]
    normalised = {
        name: tuple(sorted(coerce_span(span) for span in spans))
        for name, spans in annotations.items()
    }
    return AnnotatedDocument(doc_id=doc_id, length=size, annotations=normalised, text=text)


def document_from_tab(raw: Mapping[str, Any]) -> AnnotatedDocument:
    """Build a document from one TAB JSON document (``text`` + ``annotations``)."""
    annotations: dict[Hashable, list[SpanInput]] = {
        name: [coerce_span(mention) for mention in block.get("entity_mentions", [])]
        for name, block in raw["annotations"].items()
    }
    return make_document(annotations, text=raw["text"], doc_id=str(raw.get("doc_id", "")))


def multi_annotated(documents: Sequence[AnnotatedDocument]) -> list[AnnotatedDocument]:
    """The documents with at least two annotators (the only ones agreement can use)."""
    return [doc for doc in documents if len(doc.annotations) >= 2]
