"""The risk strategy end to end: spans → entities → measures → CP-SAT → explained masks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from sanitizer.recognizer import apply_strategy, sanitize_documents, strategy_registry
from sanitizer.risk.options import RiskOptions, RiskOptionsError, parse_measures
from sanitizer.risk.pipeline import RiskMasker
from sanitizer.solver import check_masking, mask_entities
from sanitizer.types import EntitySpan
from tests.sanitizer.risk.helpers import spans_for, write_kb

TEXT = (
    "The applicant, Ayse Demir, is a teacher in Diyarbakır. On 26 November 1996 the police "
    "questioned Ms Demir. The teacher lodged application no. 40593/04 with the Court."
)
LABELS = (
    ("Ayse Demir", "PERSON"),
    ("Ms Demir", "PERSON"),
    ("teacher", "DEM"),
    ("Diyarbakır", "LOC"),
    ("26 November 1996", "DATETIME"),
    ("police", "ORG"),
    ("40593/04", "CODE"),
    ("Court", "ORG"),
)
BACKGROUND = [
    ("about", "Ayse Demir, a teacher, was born in Diyarbakır."),
    ("other", "The Court and the police heard the teacher."),
]


def _covered(explain: dict[str, Any], combination: list[list[int]]) -> bool:
    masked = {(m["start"], m["end"]) for m in explain["masks"]}
    return any(tuple(span) in masked for span in combination)


def test_direct_entities_and_risky_ones_are_masked_with_reasons() -> None:
    masker = RiskMasker(RiskOptions(), background=BACKGROUND)
    assessment = masker.assess("doc", TEXT, spans_for(TEXT, *LABELS), {"applicant": "Ayse Demir"})
    masked = {s.text for s in assessment.masked_spans()}
    # DIRECT: the name (both mentions, one entity) and the application number.
    assert {"Ayse Demir", "Ms Demir", "40593/04"} <= masked
    # lm: a rare place and a full date; linkage: the place/teacher reach the applicant's page.
    assert {"Diyarbakır", "26 November 1996"} <= masked
    assert not {"Court", "police"} & masked
    assert all(s.attrs["reasons"] for s in assessment.masked_spans())
    entities = mask_entities(assessment.document.entities, assessment.ic)
    assert check_masking(entities, assessment.combinations, assessment.solution) == []
    measures = {c.measure for c in assessment.combinations}
    assert measures == {"lm", "linkage"}

    explain = assessment.explain()
    assert {tuple(sorted(m)) for m in explain["masks"]} == {
        ("end", "entity", "label", "reasons", "start")
    }
    for mask in explain["masks"]:
        for reason in mask["reasons"]:
            assert set(reason) == {"measure", "combination", "score", "text"}
            assert [mask["start"], mask["end"]] in reason["combination"] or reason[
                "measure"
            ] != "direct"
    assert explain["risky"] and all(_covered(explain, r["combination"]) for r in explain["risky"])
    assert 0 < assessment.masked_share() < 0.5


def test_a_knowledge_base_adds_the_kb_measure(tmp_path: Path) -> None:
    text = "Ayse Demir, a professor born in 1932, spoke."
    spans = spans_for(text, ("Ayse Demir", "PERSON"), ("professor", "DEM"), ("1932", "DATETIME"))
    options = RiskOptions(kb=str(write_kb(tmp_path / "kb.jsonl")), k=3, threshold=30.0)
    assessment = RiskMasker(options).assess("d", text, spans, {"applicant": "Ayse Demir"})
    assert [c.reason for c in assessment.combinations] == ["KB: professor + 1932 → 2 persons"]
    masked = {s.text for s in assessment.masked_spans()}
    # The cheaper member breaks the pair: a year (10^-4, 9.2 nats) says less than "professor".
    assert masked == {"Ayse Demir", "1932"}
    assert assessment.ic["e3"] < assessment.ic["e2"]
    reasons = next(s for s in assessment.masked_spans() if s.text == "1932").attrs["reasons"]
    assert reasons[0]["measure"] == "kb" and reasons[0]["combination"] == [[14, 23], [32, 36]]


def test_the_dial_masks_less_as_the_threshold_rises() -> None:
    spans = spans_for(TEXT, *LABELS)
    shares = [
        RiskMasker(RiskOptions(measures=("lm",), threshold=t))
        .assess("d", TEXT, spans)
        .masked_share()
        for t in (0.0, 9.0, 30.0)
    ]
    assert shares[0] > shares[1] > shares[2] > 0  # DIRECT entities stay masked at any setting


def test_options_refuse_what_cannot_run() -> None:
    assert RiskOptions().active_measures == ("lm", "linkage")
    assert RiskOptions(kb="kb.jsonl").active_measures == ("lm", "linkage", "kb")
    assert parse_measures(" lm, kb ,lm") == ("lm", "kb")
    cases = [
        (RiskOptions(measures=("supervised",)), "needs a trained model"),
        (RiskOptions(mlm="dir"), "masked-LM"),
        (RiskOptions(measures=("kb",)), "--kb"),
        (RiskOptions(measures=("oracle",)), "unknown risk measure 'oracle'"),
        (RiskOptions(k=0), "k must be"),
        (RiskOptions(max_arity=0), "arity"),
    ]
    for options, message in cases:
        with pytest.raises(RiskOptionsError, match=message):
            options.validate()
    with pytest.raises(RiskOptionsError):
        parse_measures(" , ")
    assert RiskOptions.from_mapping({"measures": "lm", "threshold": None, "k": 3}) == RiskOptions(
        measures=("lm",), k=3
    )


class _FakeRecognizer:
    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        return [spans_for(t, *LABELS) if t == TEXT else [] for t in texts]


def test_risk_is_a_registered_strategy_for_spans_and_for_documents() -> None:
    assert "risk" in strategy_registry.names()
    spans = spans_for(TEXT, *LABELS)
    only_spans = {s.text for s in apply_strategy("risk", spans)}
    assert {"Ayse Demir", "40593/04", "Diyarbakır"} <= only_spans and "Court" not in only_spans

    docs: list[dict[str, Any]] = [
        {"doc_id": "a", "text": TEXT, "meta": {"applicant": "Ayse Demir"}},
        {"doc_id": "b", "text": BACKGROUND[0][1]},
    ]
    explain: dict[str, Any] = {}
    masks = sanitize_documents(
        docs, "risk", _FakeRecognizer(), options={"threshold": 9.0}, explain=explain
    )
    assert set(masks) == set(explain) == {"a", "b"}
    assert masks["a"] == [[m["start"], m["end"]] for m in explain["a"]["masks"]]
    assert masks["b"] == [] and explain["b"] == {"masks": [], "risky": []}
    with pytest.raises(ValueError, match="takes no options"):
        sanitize_documents(docs, "mask-all", _FakeRecognizer(), options={"threshold": 9.0})


def test_the_person_to_protect_is_masked_even_when_the_type_rule_misses_it() -> None:
    text = "Ayse Demir spoke. The Ayse Demir Foundation replied."
    # One entity, half PERSON and half ORG: not DIRECT by the type rule.
    spans = [EntitySpan(0, 10, "PERSON", "Ayse Demir"), EntitySpan(22, 32, "ORG", "Ayse Demir")]
    options = RiskOptions(measures=("lm",), threshold=100.0)
    other = RiskMasker(options).assess("d", text, spans, {"applicant": "Ali Veli"})
    assert other.document.entities[0].identifier_type == "QUASI"
    assert other.masked_spans() == []
    for meta in ({"applicant": "Ayse Demir"}, None):
        protected = RiskMasker(options).assess("d", text, spans, meta)
        assert [s.text for s in protected.masked_spans()] == ["Ayse Demir", "Ayse Demir"]
        assert protected.masked_spans()[0].attrs["reasons"][0]["measure"] == "direct"
