"""Helpers the measures share: candidate entities, quoting, combination enumeration."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations

from sanitizer.risk import RiskDocument, RiskEntity, RiskyCombination
from sanitizer.risk.entities import entity_text

DEFAULT_MAX_ARITY = 2


def candidates(document: RiskDocument) -> list[RiskEntity]:
    """Entities a measure has to judge: not DIRECT (those are masked anyway), not the person."""
    person_id = document.attrs.get("person_entity")
    return [
        e
        for e in document.entities
        if (e.identifier_type or "").upper() != "DIRECT" and e.entity_id != person_id
    ]


def quoted(entities: Sequence[RiskEntity]) -> str:
    """``'X' + 'Y'``: how a combination is named in a reason."""
    return " + ".join(f"'{entity_text(e)}'" for e in entities)


def risky_combination(
    combo: Sequence[RiskEntity], measure: str, score: float, reason: str
) -> RiskyCombination:
    """The measure's verdict on ``combo`` as the solver reads it."""
    return RiskyCombination(frozenset(e.entity_id for e in combo), measure, score, reason)


def counted(n: int, noun: str) -> str:
    """``"1 person"``, ``"2 persons"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def minimal_combinations(
    entities: Sequence[RiskEntity],
    max_arity: int,
    risky: Callable[[tuple[RiskEntity, ...]], bool],
    compatible: Callable[[tuple[RiskEntity, ...]], bool] | None = None,
) -> Iterator[tuple[RiskEntity, ...]]:
    """Combinations up to ``max_arity`` judged risky, skipping supersets of risky ones.

    A superset of a risky combination is implied by it (breaking the smaller one breaks
    it), so it is not even tested. ``compatible`` may prune combinations before testing
    (e.g. entities that never occur near each other).
    """
    found: list[frozenset[str]] = []
    for arity in range(1, max_arity + 1):
        for combo in combinations(entities, arity):
            ids = frozenset(e.entity_id for e in combo)
            if any(f <= ids for f in found):
                continue
            if compatible is not None and arity > 1 and not compatible(combo):
                continue
            if risky(combo):
                found.append(ids)
                yield combo
