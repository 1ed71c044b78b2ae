"""The released text: a document with each masked region replaced by a placeholder.

This is the one implementation of the release; the release API (and through it the
editor's masked preview) and the exports all call :func:`release`.

Styles (:data:`REPLACEMENT_STYLES`):

``stars``     ``***``
``mask``      ``[MASK]``
``type``      ``[PERSON]``, ``[LOC]``, …
``numbered``  ``[PERSON 1]``, ``[PERSON 2]``, …: one number per entity within its type,
              counted in order of first appearance, so every mention of one person reads
              the same and two people stay apart.

Which mentions are one entity (the ``numbered`` style):

1. Spans with the same non-empty ``entity_id`` (the annotators' co-reference links) and
   the same type are one entity.
2. A span without an entity id whose normalised surface text (Unicode NFKC, case-folded,
   runs of whitespace as one space) equals that of the linked mentions of exactly one
   entity of its type joins that entity, so an unlinked "Anna Berg" reads like the
   linked ones.
3. Any other span without an entity id is keyed by its normalised surface text: the
   same text of the same type gets the same number.

Overlapping spans merge into one region, which takes the type (and entity) of its first
span in text order; touching spans stay two regions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

REPLACEMENT_STYLES = ("stars", "mask", "type", "numbered")

# (start, end, entity_type) or (start, end, entity_type, entity_id); code point offsets.
ReleaseSpan = tuple[int, int, str] | tuple[int, int, str, str]

_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One replaced region: where its placeholder sits in the released text, and the
    region of the original text it stands for (code point offsets, end exclusive)."""

    start: int
    end: int
    source_start: int
    source_end: int
    entity_type: str
    # The entity's number within its type (the ``numbered`` style); None otherwise.
    number: int | None = None


@dataclass(frozen=True, slots=True)
class Release:
    text: str
    placeholders: list[Placeholder]


def normalised_surface(text: str) -> str:
    """The form under which unlinked mentions count as the same entity."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def _regions(spans: Iterable[ReleaseSpan]) -> list[tuple[int, int, str, str]]:
    """Merged regions ``(start, end, entity_type, entity_id)`` in text order."""
    ordered = sorted((s[0], s[1], s[2], s[3] if len(s) > 3 else "") for s in spans)
    regions: list[tuple[int, int, str, str]] = []
    for start, end, entity_type, entity_id in ordered:
        if regions and start < regions[-1][1]:
            first = regions[-1]
            regions[-1] = (first[0], max(first[1], end), first[2], first[3])
        else:
            regions.append((start, end, entity_type, entity_id))
    return regions


def _entity_numbers(text: str, regions: Sequence[tuple[int, int, str, str]]) -> list[int]:
    """Each region's number within its type (see the module docstring for the keys)."""
    surfaces = [normalised_surface(text[start:end]) for start, end, _, _ in regions]
    linked: dict[tuple[str, str], set[str]] = {}
    for (_, _, entity_type, entity_id), surface in zip(regions, surfaces, strict=True):
        if entity_id:
            linked.setdefault((entity_type, surface), set()).add(entity_id)
    numbers: list[int] = []
    assigned: dict[tuple[str, str, str], int] = {}
    per_type: dict[str, int] = {}
    for (_, _, entity_type, entity_id), surface in zip(regions, surfaces, strict=True):
        if not entity_id:
            candidates = linked.get((entity_type, surface), set())
            entity_id = next(iter(candidates)) if len(candidates) == 1 else ""
        key = (entity_type, "id", entity_id) if entity_id else (entity_type, "text", surface)
        if key not in assigned:
            per_type[entity_type] = per_type.get(entity_type, 0) + 1
            assigned[key] = per_type[entity_type]
        numbers.append(assigned[key])
    return numbers


def _placeholder(style: str, entity_type: str, number: int | None) -> str:
    if style == "stars":
        return "***"
    if style == "mask":
        return "[MASK]"
    if style == "numbered":
        return f"[{entity_type} {number}]"
    return f"[{entity_type}]"


def release(text: str, spans: Iterable[ReleaseSpan], style: str = "type") -> Release:
    """``text`` with every region covered by ``spans`` replaced in ``style``, and where
    each placeholder landed."""
    if style not in REPLACEMENT_STYLES:
        raise ValueError(f"unknown replacement style {style!r}")
    regions = _regions(spans)
    numbers: Sequence[int | None] = (
        _entity_numbers(text, regions) if style == "numbered" else [None] * len(regions)
    )
    pieces: list[str] = []
    placeholders: list[Placeholder] = []
    cursor = 0
    length = 0
    for (start, end, entity_type, _), number in zip(regions, numbers, strict=True):
        pieces.append(text[cursor:start])
        length += start - cursor
        label = _placeholder(style, entity_type, number)
        placeholders.append(
            Placeholder(length, length + len(label), start, end, entity_type, number)
        )
        pieces.append(label)
        length += len(label)
        cursor = end
    pieces.append(text[cursor:])
    return Release("".join(pieces), placeholders)


def release_text(text: str, spans: Iterable[ReleaseSpan], style: str = "type") -> str:
    """The released text alone (see :func:`release`)."""
    return release(text, spans, style).text
