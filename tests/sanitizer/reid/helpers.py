"""A hand-made knowledge base of eight people and biographies of some of them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sanitizer.kanon.kb import Person
from sanitizer.types import EntitySpan

PEOPLE: tuple[tuple[str, str, str, str, str, str], ...] = (
    # id, name, born, place of birth, occupation, employer
    ("p0", "Ana Ribeiro Silva", "1987-03-12", "Braga", "nurse", "Hospital de Braga"),
    ("p1", "Bruno Costa", "1975-07-01", "Porto", "architect", "Siza Atelier"),
    ("p2", "Carla Mendes", "1990-11-23", "Lisbon", "journalist", "Publico"),
    ("p3", "Daniel Weber", "1962-02-05", "Munich", "engineer", "Siemens"),
    ("p4", "Eva Novak", "1983-09-17", "Prague", "violinist", "Czech Philharmonic"),
    ("p5", "Filip Jansen", "1970-05-30", "Utrecht", "baker", "Jansen Bakery"),
    ("p6", "Greta Lund", "1995-12-08", "Malmo", "nurse", "Skane Hospital"),
    ("p7", "Hugo Martin", "1958-04-14", "Lyon", "architect", "Ateliers Lyon"),
)

DOCS: tuple[dict[str, Any], ...] = (
    {
        "doc_id": "d0",
        "text": "Ana Ribeiro Silva (born 12 March 1987) is a nurse from Braga. Silva works for "
        "the Hospital de Braga. She is known for her interest in chess.",
        "target": "p0",
    },
    {
        "doc_id": "d3",
        "text": "Daniel Weber was born in Munich in 1962. Weber is an engineer and works for "
        "Siemens. He has two children.",
        "meta": {"person_id": "p3"},
    },
    {
        "doc_id": "d4",
        "text": "Eva Novak, born in Prague on 17 September 1983, is a violinist with the Czech "
        "Philharmonic.",
        "meta": {"target": "p4"},
    },
)


def profiles() -> list[Person]:
    """The eight people as knowledge-base profiles."""
    return [
        Person(
            pid,
            name,
            [],
            {
                "date of birth": [born],
                "place of birth": [place],
                "occupation": [job],
                "employer": [employer],
            },
        )
        for pid, name, born, place, job, employer in PEOPLE
    ]


def write_kb(path: Path) -> Path:
    """The profiles as a JSONL knowledge base."""
    path.write_text("\n".join(json.dumps(p.to_json()) for p in profiles()) + "\n")
    return path


def spans_for(text: str, surfaces: Sequence[tuple[str, str]]) -> list[EntitySpan]:
    """One span per occurrence of each ``(surface, label)``, sorted."""
    out: list[EntitySpan] = []
    for surface, label in surfaces:
        start = text.find(surface)
        while start >= 0:
            out.append(EntitySpan(start, start + len(surface), label, surface))
            start = text.find(surface, start + len(surface))
    return sorted(out, key=lambda s: s.start)


ENTITIES: tuple[tuple[str, str], ...] = (
    ("Ana Ribeiro Silva", "PERSON"),
    ("Daniel Weber", "PERSON"),
    ("Eva Novak", "PERSON"),
    ("Hospital de Braga", "ORG"),
    ("Braga", "LOC"),
    ("Munich", "LOC"),
    ("Prague", "LOC"),
    ("Siemens", "ORG"),
    ("12 March 1987", "DATETIME"),
    ("17 September 1983", "DATETIME"),
)


class StubRecognizer:
    """Finds the ENTITIES surfaces (no model to load)."""

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        """Spans of every known surface, overlaps resolved longest-first."""
        out: list[list[EntitySpan]] = []
        for text in texts:
            kept: list[EntitySpan] = []
            for span in sorted(spans_for(text, ENTITIES), key=lambda s: s.start - s.end):
                if all(span.end <= k.start or k.end <= span.start for k in kept):
                    kept.append(span)
            out.append(sorted(kept, key=lambda s: s.start))
        return out
