"""The ``risk`` strategy end to end: spans → entities → risk measures → CP-SAT → masks.

:class:`RiskMasker` is built once per collection (it indexes the background documents,
loads the knowledge base and the surprisal scorer) and then assesses one document at a
time::

    masker = RiskMasker(RiskOptions(), background=[(doc_id, text), ...])
    assessment = masker.assess(doc_id, text, spans, meta={"applicant": "Cengiz Polat"})
    assessment.masked_spans()   # every mention of every masked entity, reasons in attrs
    assessment.explain()        # {"masks": [...], "risky": [...]} for --explain

DIRECT entities (see :mod:`sanitizer.risk.entities`) are always masked; every other mask
breaks at least one risky combination, and the solver's reasons say which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from sanitizer.risk import RiskDocument, RiskEntity, RiskyCombination, risk_measures
from sanitizer.risk.entities import group_entities, person_to_protect
from sanitizer.risk.measures.kb import KnowledgeBase
from sanitizer.risk.measures.linkage import BackgroundIndex
from sanitizer.risk.options import RiskOptions
from sanitizer.risk.supervised.features import CollectionFrequency
from sanitizer.risk.supervised.model import SupervisedRiskModel
from sanitizer.risk.surprisal import SurprisalScorer, make_scorer
from sanitizer.solver import MaskingSolution, mask_entities, solve_masking
from sanitizer.types import EntitySpan


@dataclass(frozen=True)
class RiskAssessment:
    """One document's entities, risky combinations, information content and masking."""

    document: RiskDocument
    combinations: tuple[RiskyCombination, ...]
    ic: Mapping[str, float]
    solution: MaskingSolution

    @cached_property
    def _by_id(self) -> dict[str, RiskEntity]:
        return {e.entity_id: e for e in self.document.entities}

    def entity(self, entity_id: str) -> RiskEntity:
        return self._by_id[entity_id]

    def _spans_of(self, entity_ids: Sequence[str]) -> list[list[int]]:
        return sorted([m.start, m.end] for eid in entity_ids for m in self.entity(eid).mentions)

    def reasons(self, entity_id: str) -> list[dict[str, Any]]:
        """Why ``entity_id`` is masked, in the ``--explain`` shape."""
        return [
            {
                "measure": r.measure,
                "combination": self._spans_of(r.entity_ids),
                "score": r.score,
                "text": r.text,
            }
            for r in self.solution.reasons.get(entity_id, ())
        ]

    def masked_spans(self) -> list[EntitySpan]:
        """Every mention of every masked entity, sorted; ``attrs["reasons"]`` says why."""
        out: list[EntitySpan] = []
        for entity_id in self.solution.masked:
            reasons = self.reasons(entity_id)
            for mention in self.entity(entity_id).mentions:
                out.append(
                    replace(
                        mention,
                        entity_id=entity_id,
                        identifier_type=self.entity(entity_id).identifier_type,
                        attrs={**mention.attrs, "reasons": reasons},
                    )
                )
        return sorted(out, key=lambda s: (s.start, s.end))

    def masks(self) -> list[list[int]]:
        """TAB masks ``[[start, end], ...]`` of this document."""
        return [[s.start, s.end] for s in self.masked_spans()]

    def explain(self) -> dict[str, Any]:
        """``{"masks": [...], "risky": [...]}``: every mask with its reasons, every combination."""
        return {
            "masks": [
                {
                    "start": s.start,
                    "end": s.end,
                    "entity": s.entity_id,
                    "label": s.label,
                    "reasons": s.attrs["reasons"],
                }
                for s in self.masked_spans()
            ],
            "risky": [
                {
                    "measure": c.measure,
                    "combination": self._spans_of(sorted(c.entity_ids)),
                    "score": c.score,
                    "text": c.reason,
                }
                for c in self.combinations
            ],
        }

    def masked_share(self) -> float:
        """Share of the text's characters masked (0 for an empty text)."""
        n = len(self.document.text)
        return sum(e - s for s, e in self.masks()) / n if n else 0.0


def risk_document(
    doc_id: str,
    text: str,
    spans: Sequence[EntitySpan],
    meta: Mapping[str, Any] | None = None,
) -> RiskDocument:
    """What the measures see: grouped entities, the person to protect and where it came from.

    The person's own entity is DIRECT even when the type rule would not say so.
    """
    entities = group_entities(spans)
    person, person_entity = person_to_protect(entities, meta)
    # The person to protect is never left in clear, whatever its mentions' labels say.
    entities = [
        replace(e, identifier_type="DIRECT") if e.entity_id == person_entity else e
        for e in entities
    ]
    source = "applicant" if (meta or {}).get("applicant") else "most frequent person"
    return RiskDocument(
        doc_id=doc_id,
        text=text,
        entities=entities,
        person=person,
        attrs={"person_entity": person_entity, "person_source": source},
    )


class RiskMasker:
    """Shared resources for one collection and the per-document assessment."""

    def __init__(
        self,
        options: RiskOptions | None = None,
        background: Sequence[tuple[str, str]] = (),
        scorer: SurprisalScorer | None = None,
    ) -> None:
        """``background``: ``(doc_id, text)`` pairs an adversary could search (and whose
        vocabulary counts as predictable); a document is never its own background."""
        self.options = (options or RiskOptions()).validate()
        measures = self.options.active_measures
        name, scorer_options = self.options.scorer_spec()
        self.scorer = scorer or make_scorer(name, background, **scorer_options)
        self.index = BackgroundIndex(background) if "linkage" in measures else None
        self.kb = (
            KnowledgeBase.load(self.options.kb) if self.options.kb and "kb" in measures else None
        )
        model_dir = self.options.risk_model if "supervised" in measures else None
        self.risk_model = SupervisedRiskModel.load(model_dir) if model_dir else None
        self.collection = CollectionFrequency(background) if model_dir else None

    def measure_config(self) -> dict[str, Any]:
        """What every measure receives (each reads the keys it knows)."""
        o = self.options
        return {
            "scorer": self.scorer,
            "threshold": o.threshold,
            "lm_max_arity": o.lm_max_arity,
            "window": o.window,
            "background": self.index,
            "top_docs": o.top_docs,
            "max_arity": o.max_arity,
            "k": o.k,
            "kb": self.kb,
            "risk_model": self.risk_model,
            "collection": self.collection,
            "supervised_threshold": o.supervised_threshold,
            **o.extra,
        }

    def assess(
        self,
        doc_id: str,
        text: str,
        spans: Sequence[EntitySpan],
        meta: Mapping[str, Any] | None = None,
    ) -> RiskAssessment:
        """Run the measures on one document and solve its masking."""
        document = risk_document(doc_id, text, spans, meta)
        entities = document.entities
        config = self.measure_config()
        combinations: list[RiskyCombination] = []
        for name in self.options.active_measures:
            combinations.extend(risk_measures.get(name)(document, config))
        ic = {eid: s.total for eid, s in self.scorer.entity_surprisals(document).items()}
        solution = solve_masking(
            mask_entities(entities, ic), combinations, time_limit=self.options.time_limit
        )
        return RiskAssessment(document, tuple(combinations), ic, solution)
