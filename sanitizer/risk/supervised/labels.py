"""Training labels from human decisions: which detected entities people masked.

TAB stores, per annotator, the entity mentions that annotator marked, each with an
``identifier_type``: DIRECT or QUASI (masked) or NO_MASK (kept). A detected entity (the
recognizer's mentions grouped by :func:`~sanitizer.risk.entities.group_entities`) gets one
vote per annotator:

* the annotator's mentions overlapping any mention of the entity decide the vote: MASK when
  at least half of them are DIRECT/QUASI (a tie masks: the annotator did hide the entity
  somewhere, and a partly masked entity is not protected), KEEP otherwise;
* an annotator with no overlapping mention votes KEEP. Every TAB annotator annotates the
  whole document, so a span nobody marked is text the annotator left in clear; counting
  that as KEEP is what the annotator's masks (and the evaluation against them) say. It is
  also why a detected entity overlapping no annotated mention at all is KEEP: the
  recognizer's spurious detections ("the Court", "Article 6") are exactly what the model has
  to learn to leave alone.

The entity is MASK when strictly more than half of the voters said MASK, KEEP when strictly
more than half said KEEP, and left out of training (``None``) on a tie: a decision people
disagree on is not one to imitate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sanitizer.risk import RiskEntity

MASKED_TYPES = frozenset({"DIRECT", "QUASI"})


def annotator_mentions(annotations: Mapping[str, Any]) -> dict[str, list[tuple[int, int, bool]]]:
    """``{annotator: [(start, end, masked), ...]}`` from a TAB ``annotations`` object."""
    out: dict[str, list[tuple[int, int, bool]]] = {}
    for annotator, record in annotations.items():
        mentions = record.get("entity_mentions", []) if isinstance(record, Mapping) else []
        out[str(annotator)] = [
            (
                int(m["start_offset"]),
                int(m["end_offset"]),
                str(m.get("identifier_type", "")).upper() in MASKED_TYPES,
            )
            for m in mentions
        ]
    return out


def _overlaps(entity: RiskEntity, start: int, end: int) -> bool:
    return any(m.start < end and start < m.end for m in entity.mentions)


def annotator_vote(entity: RiskEntity, mentions: Iterable[tuple[int, int, bool]]) -> bool:
    """One annotator's decision on ``entity``: ``True`` = MASK (see the module docstring)."""
    decisions = [masked for start, end, masked in mentions if _overlaps(entity, start, end)]
    return bool(decisions) and 2 * sum(decisions) >= len(decisions)


def entity_labels(
    entities: Sequence[RiskEntity], annotations: Mapping[str, Any]
) -> dict[str, bool | None]:
    """``{entity_id: True (MASK) | False (KEEP) | None (no majority)}``.

    With no annotator at all every entity is ``None``: there is no decision to learn.
    """
    by_annotator = annotator_mentions(annotations)
    out: dict[str, bool | None] = {}
    for entity in entities:
        votes = [annotator_vote(entity, mentions) for mentions in by_annotator.values()]
        masks = sum(votes)
        if 2 * masks > len(votes):
            out[entity.entity_id] = True
        elif 2 * masks < len(votes):
            out[entity.entity_id] = False
        else:
            out[entity.entity_id] = None
    return out
