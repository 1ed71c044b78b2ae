"""Explicit privacy risk (seed 001, §3.2): the shape every risk measure shares.

A risk measure looks at one document, its detected entities (co-referent mentions
grouped under one entity id) and the person to protect, and names the *risky
combinations*: sets of entity ids that, left unmasked together, point to that person.
A masking solver then has to break every combination by masking at least one member;
it reads nothing else from a measure, so a new measure is one registered callable::

    @risk_measures.register("my-measure")
    def my_measure(document: RiskDocument, config: Mapping[str, Any]) -> list[RiskyCombination]:
        ...

Modules: :mod:`~sanitizer.risk.entities` (spans → entities, the DIRECT rule, the person to
protect), :mod:`~sanitizer.risk.surprisal` (information content), :mod:`~sanitizer.risk.measures`
(``lm``, ``linkage``, ``kb``, ``supervised``), :mod:`~sanitizer.risk.supervised` (training
and storing the supervised model) and :mod:`~sanitizer.risk.pipeline` (measures → CP-SAT → masks
with reasons; imported on its own because the solver imports this module).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sanitizer.registry import Registry
from sanitizer.types import EntitySpan


@dataclass(frozen=True)
class RiskEntity:
    """One entity of a document: all its mentions, masked or kept together."""

    entity_id: str
    label: str
    mentions: tuple[EntitySpan, ...]
    identifier_type: str | None = None


@dataclass(frozen=True)
class RiskDocument:
    """What a risk measure sees: the text, its entities and who must stay unrecognisable."""

    doc_id: str
    text: str
    entities: Sequence[RiskEntity]
    person: str = ""
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RiskyCombination:
    """Entities that together point to the person; at least one must be masked.

    ``reason`` is shown to people as is ("KB: 1932 + professor → 2 persons").
    """

    entity_ids: frozenset[str]
    measure: str
    score: float
    reason: str


RiskMeasure = Callable[[RiskDocument, Mapping[str, Any]], list[RiskyCombination]]

# The measures are modules of ``sanitizer.risk.measures``, imported on the first lookup.
risk_measures: Registry[RiskMeasure] = Registry("risk measure", plugins="sanitizer.risk.measures")
