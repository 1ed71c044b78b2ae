"""``supervised``: entities a model trained on human decisions would mask (seed 001, §3.2.3).

Each candidate entity (not DIRECT, not the person: those are masked anyway) with
p(mask) ≥ ``supervised_threshold`` is a risky combination of one, reason
"supervised: p(mask) = .93". The score is p(mask).

Config keys: ``risk_model`` (a loaded
:class:`~sanitizer.risk.supervised.model.SupervisedRiskModel`, required), ``scorer`` (the
collection's surprisal scorer, for the IC features), ``collection`` (a
:class:`~sanitizer.risk.supervised.features.CollectionFrequency`, for the document
frequency feature), ``supervised_threshold`` (default: the model's own, 0.5 unless trained
otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sanitizer.risk import RiskDocument, RiskyCombination, risk_measures
from sanitizer.risk.measures.common import candidates, risky_combination
from sanitizer.risk.supervised.model import SupervisedRiskModel
from sanitizer.risk.surprisal import make_scorer


def probability_text(p: float) -> str:
    """``.93`` (``1.00`` and ``0`` stay readable)."""
    text = f"{p:.2f}"
    return text[1:] if text.startswith("0.") else text


@risk_measures.register("supervised")
def supervised_risk(document: RiskDocument, config: Mapping[str, Any]) -> list[RiskyCombination]:
    """Candidate entities whose p(mask) reaches the threshold, one combination each."""
    model = config.get("risk_model")
    if not isinstance(model, SupervisedRiskModel):
        raise ValueError("the supervised risk measure needs a trained model (--risk-model DIR)")
    threshold = config.get("supervised_threshold")
    threshold = model.threshold if threshold is None else float(threshold)
    scorer = config.get("scorer") or make_scorer()
    probabilities = model.predict(document, scorer, config.get("collection"))
    out: list[RiskyCombination] = []
    for entity in candidates(document):
        p = probabilities[entity.entity_id]
        if p >= threshold:
            reason = f"supervised: p(mask) = {probability_text(p)}"
            out.append(risky_combination([entity], "supervised", round(p, 3), reason))
    return out
