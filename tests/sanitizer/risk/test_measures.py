"""Each registered risk measure on hand-made documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from sanitizer.risk import RiskDocument, RiskyCombination, risk_measures
from sanitizer.risk.measures.kb import KnowledgeBase
from sanitizer.risk.measures.linkage import BackgroundIndex
from sanitizer.risk.pipeline import risk_document
from sanitizer.risk.surprisal import WordfreqScorer
from tests.sanitizer.risk.helpers import spans_for, write_kb

TEXT = (
    "The applicant, Ayse Demir, born in 1932, is a professor and a teacher in Diyarbakır. "
    "She was questioned by the police on 26 November 1996."
)
LABELS = (
    ("Ayse Demir", "PERSON"),
    ("1932", "DATETIME"),
    ("professor", "DEM"),
    ("teacher", "DEM"),
    ("Diyarbakır", "LOC"),
    ("police", "ORG"),
    ("26 November 1996", "DATETIME"),
)


def _document(meta: dict[str, str] | None = None) -> RiskDocument:
    return risk_document("doc", TEXT, spans_for(TEXT, *LABELS), meta or {"applicant": "Ayse Demir"})


def _named(document: RiskDocument, combos: list[RiskyCombination]) -> dict[frozenset[str], str]:
    text = {e.entity_id: e.mentions[0].text for e in document.entities}
    return {frozenset(text[i] for i in c.entity_ids): c.reason for c in combos}


def test_registry_holds_the_three_zero_shot_measures() -> None:
    assert {"lm", "linkage", "kb"} <= set(risk_measures.names())


def test_lm_flags_surprising_entities_and_never_direct_ones() -> None:
    document = _document()
    # Background documents of the domain make its common words ("teacher") predictable.
    scorer = WordfreqScorer([("bg", "the teacher and the professor told the police")])
    combos = risk_measures.get("lm")(document, {"scorer": scorer, "threshold": 9.0})
    named = _named(document, combos)
    assert frozenset({"Diyarbakır"}) in named
    assert frozenset({"26 November 1996"}) in named  # the year: 10^-4
    assert frozenset({"1932"}) in named
    assert not {frozenset({"police"}), frozenset({"teacher"}), frozenset({"Ayse Demir"})} & set(
        named
    )
    assert frozenset({"teacher"}) in _named(
        document, risk_measures.get("lm")(document, {"scorer": WordfreqScorer(), "threshold": 9.0})
    )
    assert all(c.measure == "lm" and c.score > 9.0 for c in combos)
    assert named[frozenset({"Diyarbakır"})].startswith("LM: log p('Diyarbakır') = −")
    # A stricter dial (higher threshold) flags a subset.
    strict = risk_measures.get("lm")(document, {"scorer": scorer, "threshold": 12.0})
    assert set(_named(document, strict)) < set(named)


def test_lm_combinations_sum_surprisal_within_the_window() -> None:
    document = _document()
    scorer = WordfreqScorer()
    config = {"scorer": scorer, "threshold": 14.0, "lm_max_arity": 2, "window": 40}
    named = _named(document, risk_measures.get("lm")(document, config))
    pair = frozenset({"professor", "teacher"})
    assert pair in named and " + " in named[pair]
    # Far-apart entities are never combined; members of risky singletons are not extended.
    assert frozenset({"professor", "police"}) not in named
    assert not any(len(k) == 2 and frozenset({"Diyarbakır"}) <= k for k in named if len(k) > 1)


def test_linkage_finds_combinations_that_reach_documents_about_the_person() -> None:
    filler = " ".join(f"word{i}" for i in range(60))
    background = BackgroundIndex(
        [
            ("about", f"Ayse Demir worked as a teacher in Diyarbakır. {filler}"),
            ("t1", "A teacher spoke."),
            ("t2", "The teacher left."),
            ("d1", "Diyarbakır is a city."),
            ("d2", "Rain in Diyarbakır."),
            ("p1", "A professor in Ankara."),
        ]
    )
    document = _document()
    config = {"background": background, "top_docs": 2, "max_arity": 2}
    named = _named(document, risk_measures.get("linkage")(document, config))
    # Alone, each word retrieves other (shorter, better-scoring) documents first.
    assert named == {
        frozenset({"teacher", "Diyarbakır"}): (
            "linkage: 'teacher' + 'Diyarbakır' → 1 document about the applicant"
        )
    }
    # With room for every match, 'teacher' alone already reaches the person's document.
    wide = _named(document, risk_measures.get("linkage")(document, {**config, "top_docs": 5}))
    assert set(wide) == {frozenset({"teacher"}), frozenset({"Diyarbakır"})}


def test_linkage_without_background_or_person_documents_finds_nothing() -> None:
    document = _document()
    assert risk_measures.get("linkage")(document, {}) == []
    unrelated = BackgroundIndex([("x", "A teacher in Diyarbakır.")])
    assert risk_measures.get("linkage")(document, {"background": unrelated}) == []
    # The document itself is never its own background.
    itself = BackgroundIndex([("doc", TEXT)])
    assert risk_measures.get("linkage")(document, {"background": itself}) == []


def _kb(tmp_path: Path) -> KnowledgeBase:
    return KnowledgeBase.load(write_kb(tmp_path / "kb.jsonl"))


def test_kb_flags_combinations_shared_by_fewer_than_k_persons(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    document = _document()
    combos = risk_measures.get("kb")(document, {"kb": kb, "k": 3, "max_arity": 2})
    assert [(sorted(next(iter(_named(document, [c])))), c.reason, c.score) for c in combos] == [
        (["1932", "professor"], "KB: 1932 + professor → 2 persons", 2.0)
    ]
    # k = 2: two persons share the pair, so it is safe; nothing is risky.
    assert risk_measures.get("kb")(document, {"kb": kb, "k": 2, "max_arity": 2}) == []
    # Arity 1 cannot see the pair.
    assert risk_measures.get("kb")(document, {"kb": kb, "k": 3, "max_arity": 1}) == []
    with pytest.raises(ValueError, match="k must be"):
        risk_measures.get("kb")(document, {"kb": kb, "k": 0})
    assert risk_measures.get("kb")(document, {}) == []
