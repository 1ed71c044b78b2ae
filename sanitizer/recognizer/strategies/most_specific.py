"""``most-specific``: mask only the categories TAB annotators masked most often."""

from __future__ import annotations

from collections.abc import Sequence

from sanitizer.recognizer.registry import masking_strategy
from sanitizer.types import EntitySpan

# Seed 001's "mask most specific" baseline: the categories TAB annotators masked most often.
MOST_SPECIFIC_LABELS = frozenset({"CODE", "PERSON", "DATETIME", "LOC", "QUANTITY"})


@masking_strategy("most-specific")
def mask_most_specific(spans: Sequence[EntitySpan]) -> list[EntitySpan]:
    """Mask only CODE, PERSON, DATETIME, LOC and QUANTITY entities."""
    return [s for s in spans if s.label in MOST_SPECIFIC_LABELS]
