"""Vocabulary and value types shared by the Django-free NLP/ML code.

The category names follow the Text Anonymization Benchmark (TAB, Pilán et al. 2022)
so that spans move between the recognizer, the evaluation code, the database and
TAB JSON files without translation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SEMANTIC_TYPES: tuple[str, ...] = (
    "PERSON",
    "CODE",
    "LOC",
    "ORG",
    "DEM",
    "DATETIME",
    "QUANTITY",
    "MISC",
)
IDENTIFIER_TYPES: tuple[str, ...] = ("DIRECT", "QUASI", "NO_MASK")
CONFIDENTIAL_STATUSES: tuple[str, ...] = (
    "NOT_CONFIDENTIAL",
    "BELIEF",
    "POLITICS",
    "SEX",
    "ETHNIC",
    "HEALTH",
)


@dataclass(frozen=True, slots=True)
class EntitySpan:
    """A typed character span found in a text.

    ``start``/``end`` are character offsets into the text the span came from
    (end exclusive); ``text`` must equal ``source_text[start:end]``.
    """

    start: int
    end: int
    label: str
    text: str
    source: str = ""
    confidence: float | None = None
    identifier_type: str | None = None
    entity_id: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"invalid span offsets {self.start}..{self.end}")
        if len(self.text) != self.end - self.start:
            raise ValueError(
                f"span text {self.text!r} does not fit offsets {self.start}..{self.end}"
            )
