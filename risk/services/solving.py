"""Re-solving a stored assessment with other settings: the dial and the ``risk_solve`` job.

Nothing here runs the recognizer or a scorer: the ``lm`` measure is re-run over the
entities' stored surprisal peaks (a scorer that only answers from the assessment), the
other measures' stored combinations are re-filtered by ``k`` and the maximum arity, and
CP-SAT solves what is left.

Re-filtering is exact for settings at most as loose as the assessment's (a ``k`` or a
maximum arity no larger): combinations a looser setting would add were never searched.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sanitizer.risk import RiskDocument, RiskEntity, RiskyCombination, risk_measures
from sanitizer.risk.options import RiskOptions
from sanitizer.risk.pipeline import RiskAssessment as SolvedAssessment
from sanitizer.risk.surprisal import EntitySurprisal, SurprisalScorer
from sanitizer.solver import mask_entities, solve_masking
from sanitizer.types import EntitySpan


class StoredScorer(SurprisalScorer):
    """Answers entity surprisals from a stored assessment; scores no text."""

    name = "stored"

    def __init__(self, surprisals: Mapping[str, EntitySurprisal]) -> None:
        self._surprisals = dict(surprisals)

    def entity_surprisals(self, document: RiskDocument) -> dict[str, EntitySurprisal]:
        return self._surprisals


@dataclass(frozen=True)
class Masking:
    """One solve of a stored assessment."""

    solved: SolvedAssessment
    settings: dict[str, Any]
    solve_ms: float

    def masks(self) -> list[dict[str, Any]]:
        """The API's masks: every masked mention, its entity and label and its reasons."""
        return self.solved.explain()["masks"]

    def masked_spans(self) -> list[EntitySpan]:
        """Spans for a machine set: ``attrs`` carry ``reasons`` and ``entity``."""
        spans = self.solved.masked_spans()
        for span in spans:
            span.attrs["entity"] = span.entity_id
        return spans

    @property
    def masked_characters(self) -> int:
        return sum(e - s for s, e in _merged(self.solved.masks()))

    @property
    def share_masked(self) -> float:
        n = len(self.solved.document.text)
        return self.masked_characters / n if n else 0.0

    @property
    def risky(self) -> int:
        return len(self.solved.combinations)


def _merged(intervals: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    # Mentions of two entities may overlap: a character is masked once.
    out: list[tuple[int, int]] = []
    for s, e in sorted((int(a), int(b)) for a, b in intervals):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def effective_settings(
    assessment_settings: Mapping[str, Any], requested: Mapping[str, Any]
) -> dict[str, Any]:
    """The requested dial settings over the assessment's own (then the library defaults)."""
    defaults = RiskOptions.from_mapping(assessment_settings)
    measures = requested.get("measures") or assessment_settings.get("measures")
    return {
        "threshold": float(requested.get("threshold", defaults.threshold)),
        "k": int(requested.get("k", defaults.k)),
        "max_arity": int(requested.get("max_arity", defaults.max_arity)),
        "measures": list(measures or defaults.active_measures),
    }


def _document(text: str, data: Mapping[str, Any], doc_id: str) -> RiskDocument:
    entities = [
        RiskEntity(
            entity_id=e["id"],
            label=e["label"],
            identifier_type=e.get("identifier_type"),
            mentions=tuple(
                EntitySpan(s, t, e["label"], text[s:t], entity_id=e["id"]) for s, t in e["mentions"]
            ),
        )
        for e in data["entities"]
    ]
    return RiskDocument(
        doc_id=doc_id,
        text=text,
        entities=entities,
        person=data.get("person", ""),
        attrs={"person_entity": data.get("person_entity")},
    )


def _kept(combination: Mapping[str, Any], settings: Mapping[str, Any]) -> bool:
    if combination["measure"] not in settings["measures"]:
        return False
    if combination["measure"] in ("kb", "linkage") and (
        len(combination["entity_ids"]) > settings["max_arity"]
    ):
        return False
    # kb's score is how many persons share the combination: risky below k.
    return not (combination["measure"] == "kb" and combination["score"] >= settings["k"])


def masking_solve(
    *,
    text: str,
    data: Mapping[str, Any],
    settings: Mapping[str, Any],
    doc_id: str = "",
    time_limit: float | None = None,
) -> Masking:
    """Re-filter the stored combinations with ``settings`` (effective ones) and solve."""
    started = time.perf_counter()
    document = _document(text, data, doc_id)
    combinations: list[RiskyCombination] = []
    if "lm" in settings["measures"]:
        scorer = StoredScorer(
            {e["id"]: EntitySurprisal(total=e["ic"], peak=e["peak"]) for e in data["entities"]}
        )
        config = {**data.get("lm_config", {}), "scorer": scorer, "threshold": settings["threshold"]}
        combinations.extend(risk_measures.get("lm")(document, config))
    combinations.extend(
        RiskyCombination(frozenset(c["entity_ids"]), c["measure"], c["score"], c["text"])
        for c in data["combinations"]
        if _kept(c, settings)
    )
    ic = {e["id"]: float(e["ic"]) for e in data["entities"]}
    options = RiskOptions()
    solution = solve_masking(
        mask_entities(document.entities, ic),
        combinations,
        time_limit=time_limit if time_limit is not None else options.time_limit,
    )
    solved = SolvedAssessment(document, tuple(combinations), ic, solution)
    elapsed = (time.perf_counter() - started) * 1000
    return Masking(solved=solved, settings=dict(settings), solve_ms=elapsed)
