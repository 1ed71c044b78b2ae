"""``mask-all``: mask every detected entity (seed 001's recall-first baseline)."""

from __future__ import annotations

from collections.abc import Sequence

from sanitizer.recognizer.registry import masking_strategy
from sanitizer.types import EntitySpan


@masking_strategy("mask-all")
def mask_all(spans: Sequence[EntitySpan]) -> list[EntitySpan]:
    """Mask every detected entity."""
    return list(spans)
