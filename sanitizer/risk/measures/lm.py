"""``lm``: surprisal risk (seed 001, §3.2.1) with a pluggable scorer.

An entity is risky when its log-probability falls below ``−threshold``; the entity's
log-probability is that of its most surprising token (the word that gives it away: "Mardin"
in "Mardin Public Prosecutor"), so an entity is not risky merely for being long. A
combination of entities mentioned within ``window`` characters of each other is risky when
the sum of its members' surprisals exceeds the threshold (independent words multiply their
probabilities); combinations are only formed up to ``lm_max_arity`` (default 1), because a
context-free scorer cannot tell related words from independent ones.

Config keys: ``scorer`` (a :class:`~sanitizer.risk.surprisal.SurprisalScorer`; default: a
wordfreq scorer without background), ``threshold`` (nats, default
:data:`DEFAULT_THRESHOLD`), ``lm_max_arity``, ``window``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sanitizer.risk import RiskDocument, RiskEntity, RiskyCombination, risk_measures
from sanitizer.risk.measures.common import (
    candidates,
    minimal_combinations,
    quoted,
    risky_combination,
)
from sanitizer.risk.surprisal import SurprisalScorer, make_scorer

DEFAULT_THRESHOLD = 9.0
"""Nats. Chosen on TAB dev's tuning part (documents 0–59, benchmarks/risk_tab_dev.py)."""
DEFAULT_LM_MAX_ARITY = 1
DEFAULT_WINDOW = 200


def entity_surprisal(scorer: SurprisalScorer, entity: RiskEntity, document: RiskDocument) -> float:
    """The entity's risk score: the surprisal of its most surprising word, in nats."""
    return scorer.entity_surprisals(document)[entity.entity_id].peak


@risk_measures.register("lm")
def lm_risk(document: RiskDocument, config: Mapping[str, Any]) -> list[RiskyCombination]:
    """Entities (and nearby combinations) whose log-probability is below ``−threshold``."""
    scorer: SurprisalScorer = config.get("scorer") or make_scorer()
    threshold = float(config.get("threshold", DEFAULT_THRESHOLD))
    max_arity = int(config.get("lm_max_arity", DEFAULT_LM_MAX_ARITY))
    window = int(config.get("window", DEFAULT_WINDOW))
    pool = candidates(document)
    surprisal = {e.entity_id: entity_surprisal(scorer, e, document) for e in pool}

    def near(combo: tuple[RiskEntity, ...]) -> bool:
        return all(_near(a, b, window) for i, a in enumerate(combo) for b in combo[i + 1 :])

    def score(combo: tuple[RiskEntity, ...]) -> float:
        return sum(surprisal[e.entity_id] for e in combo)

    out: list[RiskyCombination] = []
    for combo in minimal_combinations(pool, max_arity, lambda c: score(c) > threshold, near):
        value = score(combo)
        reason = f"LM: log p({quoted(combo)}) = −{value:.1f} < −{threshold:g}"
        out.append(risky_combination(combo, "lm", round(value, 3), reason))
    return out


def _near(a: RiskEntity, b: RiskEntity, window: int) -> bool:
    return any(abs(ma.start - mb.start) <= window for ma in a.mentions for mb in b.mentions)
