"""``kb``: k-anonymity against a knowledge base (seed 000's index, seed 001 §3.2.2's idea).

The knowledge base (JSONL profiles, ``--kb``) is indexed by :mod:`sanitizer.kanon`: every
attribute value and its variants ("1932", "professor", "Istanbul") is a term with the set
of persons having it. The document's terms are found with the index's gazetteer; a term
belongs to the candidate entity whose mention it overlaps (terms outside every detected
entity are not judged: the recognizer decides what can be masked). An entity stands for
the persons having any of its terms.

A combination of entities up to ``max_arity`` is risky when between 1 and k−1 persons share
it all ("KB: 1932 + professor → 2 persons"); nobody sharing it is no risk. Supersets of a
risky combination, and of one shared by nobody, are not counted.

Config keys: ``kb`` (a :class:`KnowledgeBase`; without one the measure finds nothing),
``k`` (default :data:`DEFAULT_K`), ``max_arity``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyroaring import BitMap

from sanitizer.kanon.gazetteer import Gazetteer
from sanitizer.kanon.index import InvertedIndex
from sanitizer.kanon.labelling import load_or_build
from sanitizer.risk import RiskDocument, RiskEntity, RiskyCombination, risk_measures
from sanitizer.risk.measures.common import (
    DEFAULT_MAX_ARITY,
    candidates,
    counted,
    minimal_combinations,
    risky_combination,
)

DEFAULT_K = 5


@dataclass(frozen=True)
class KnowledgeBase:
    """An inverted index of the knowledge base and the gazetteer of its terms."""

    index: InvertedIndex
    gazetteer: Gazetteer

    @classmethod
    def load(cls, path: str | Path) -> KnowledgeBase:
        """From a JSONL profile file, or from a saved index directory."""
        p = Path(path)
        if p.is_dir():
            index, gazetteer = load_or_build(index_dir=p)
        else:
            index, gazetteer = load_or_build(kb_path=p, kb_format="jsonl")
        return cls(index, gazetteer)


@risk_measures.register("kb")
def kb_risk(document: RiskDocument, config: Mapping[str, Any]) -> list[RiskyCombination]:
    """Combinations of the document's KB terms shared by fewer than k persons."""
    kb: KnowledgeBase | None = config.get("kb")
    if kb is None:
        return []
    k = int(config.get("k", DEFAULT_K))
    if k < 1:
        raise ValueError(f"k must be ≥ 1, got {k}")
    max_arity = int(config.get("max_arity", DEFAULT_MAX_ARITY))
    pool = candidates(document)
    terms: dict[str, list[str]] = {}
    for occurrence in kb.gazetteer.find(document.text):
        for entity in pool:
            if any(m.start < occurrence.end and occurrence.start < m.end for m in entity.mentions):
                found = terms.setdefault(entity.entity_id, [])
                if occurrence.term not in found:
                    found.append(occurrence.term)
                break
    persons: dict[str, BitMap] = {}
    for entity_id, entity_terms in terms.items():
        union = BitMap()
        for term in entity_terms:
            union |= kb.index.postings(term)
        if union:
            persons[entity_id] = union
    judged = [e for e in pool if e.entity_id in persons]
    counts: dict[frozenset[str], int] = {}

    def shared(combo: tuple[RiskEntity, ...]) -> int:
        key = frozenset(e.entity_id for e in combo)
        if key not in counts:
            result = BitMap(persons[combo[0].entity_id])
            for entity in combo[1:]:
                result &= persons[entity.entity_id]
            counts[key] = len(result)
        return counts[key]

    def someone(combo: tuple[RiskEntity, ...]) -> bool:
        return shared(combo) > 0

    out: list[RiskyCombination] = []
    for combo in minimal_combinations(judged, max_arity, lambda c: 0 < shared(c) < k, someone):
        n = shared(combo)
        names = " + ".join(" / ".join(terms[e.entity_id]) for e in combo)
        out.append(
            risky_combination(combo, "kb", float(n), f"KB: {names} → {counted(n, 'person')}")
        )
    return out
