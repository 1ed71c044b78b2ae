"""The distant-supervision masking tagger: label conversion, a tiny training run, scores."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from sanitizer.kanon.gazetteer import Gazetteer
from sanitizer.kanon.index import build_index
from sanitizer.kanon.kb import Person
from sanitizer.kanon.masker import (
    distant_examples,
    evaluate_masker,
    masker_config,
    masks_to_spans,
    score_masks,
    span_policies,
    train_masker,
)
from sanitizer.kanon.synthetic import SyntheticPeople
from sanitizer.training import TrainingConfig, load_tagger
from sanitizer.types import EntitySpan

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


# --------------------------------------------------------------------------- label conversion


def _albano_kb() -> list[Person]:
    people = [
        Person(
            "Q1",
            "Leandro Micael Gomes Albano",
            [],
            {
                "place of birth": ["Lisbon"],
                "member of sports team": ["Freamunde"],
                "date of birth": ["1992-08-05"],
            },
        )
    ]
    people += [
        Person(f"L{i}", f"Person L{i}", [], {"place of birth": ["Lisbon"]}) for i in range(9)
    ]
    people += [
        Person(f"F{i}", f"Person F{i}", [], {"member of sports team": ["Freamunde"]})
        for i in range(5)
    ]
    return people


ALBANO = (
    "Leandro Albano (born 5 August 1992 in Lisbon) played for Freamunde. "
    "Albano left Freamunde in 2015."
)


def test_distant_examples_turn_algorithm_1_masks_into_mask_spans() -> None:
    index = build_index(_albano_kb())
    gaz = Gazetteer.from_terms(index.terms)
    docs = [{"doc_id": "a", "text": ALBANO}, {"doc_id": "b", "text": "Nothing to see here."}]
    examples, gold = distant_examples(docs, index, gaz, k=5, max_arity=3, selection="greedy")
    text, spans = examples[0]
    assert text == ALBANO
    # Lisbon (10 people) + Freamunde (6) single out one person: greedy masks Freamunde.
    assert [s.text for s in spans] == [
        "Leandro Albano",
        "5 August 1992",
        "Freamunde",
        "Albano",
        "Freamunde",
    ]
    assert all(s.label == "MASK" and s.source == "distant" for s in spans)
    # A term that alone singles out one person is a direct identifier (seed 000 Table 4).
    assert [s.identifier_type for s in spans] == ["DIRECT", "DIRECT", "QUASI", "DIRECT", "QUASI"]
    assert gold["a"] == spans
    assert (spans[0].start, spans[0].end) == (0, 14)
    assert examples[1] == ("Nothing to see here.", [])
    assert gold["b"] == []


def test_span_policies_join_only_whitespace_separated_masks() -> None:
    text = "S. Gatto Calgari, born in Lerici, lives in Paris."
    g, c = text.index("Gatto"), text.index("Calgari")
    lerici = text.index("Lerici")
    masks = [[c, c + 7], [g, g + 5], [lerici, lerici + 6]]
    labelled = masks_to_spans(text, masks, "as_labelled")
    assert [s.text for s in labelled] == ["Gatto", "Calgari", "Lerici"]
    joined = masks_to_spans(text, masks, "join_whitespace")
    assert [s.text for s in joined] == ["Gatto Calgari", "Lerici"]
    assert [(s.start, s.end) for s in joined] == [(3, 16), (26, 32)]
    # Overlapping masks are fused under every policy (BIO cannot encode overlaps).
    assert [s.text for s in masks_to_spans(text, [[3, 8], [6, 16]])] == ["Gatto Calgari"]
    assert {"as_labelled", "join_whitespace"} <= set(span_policies.names())
    with pytest.raises(ValueError):
        masks_to_spans(text, [[40, 60]])


def test_train_masker_rejects_typed_labels(tmp_path: Path) -> None:
    index = build_index(_albano_kb())
    gaz = Gazetteer.from_terms(index.terms)
    typed = TrainingConfig(labels=["PERSON"])
    with pytest.raises(ValueError, match="MASK"):
        train_masker(typed, [], [], index, gaz, 5, 3, "greedy", tmp_path)
    assert masker_config(labels=["PERSON"], epochs=2).labels == ["MASK"]


# --------------------------------------------------------------------------- evaluation


class _FixedTagger:
    """Returns hand-made predictions by text."""

    def __init__(self, by_text: dict[str, list[EntitySpan]]) -> None:
        self.by_text = by_text

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        return [self.by_text.get(t, []) for t in texts]


def _span(text: str, part: str) -> EntitySpan:
    start = text.index(part)
    return EntitySpan(start, start + len(part), "MASK", part)


def test_evaluate_masker_on_hand_made_predictions() -> None:
    text = "Anna Berg lives in Oslo and works at Nordvik AS since 2001."
    empty = "The weather was fine."
    kinds = {"Anna Berg": "DIRECT", "Oslo": "QUASI", "Nordvik AS": "QUASI"}
    gold = {
        "d1": [
            dataclasses.replace(_span(text, part), identifier_type=kind)
            for part, kind in kinds.items()
        ]
    }
    # Anna Berg exact (COR), Nordvik inside "Nordvik AS" (PAR), 2001 spurious, Oslo missed.
    tagger = _FixedTagger(
        {text: [_span(text, "Anna Berg"), _span(text, "Nordvik"), _span(text, "2001")]}
    )
    docs = [{"doc_id": "d1", "text": text}, {"doc_id": "d2", "text": empty}]
    ev = evaluate_masker(tagger, docs, gold, batch_size=1)
    # exact: COR 1, POS 3, ACT 3
    assert ev.exact.precision == pytest.approx(1 / 3)
    assert ev.exact.recall == pytest.approx(1 / 3)
    assert ev.exact.f1 == pytest.approx(1 / 3)
    # partial: (COR + PAR/2) / 3 = 1.5 / 3
    assert ev.partial.precision == pytest.approx(0.5)
    assert ev.partial.recall == pytest.approx(0.5)
    assert ev.partial.f1 == pytest.approx(0.5)
    # words: gold Anna Berg Oslo Nordvik AS (5), pred Anna Berg Nordvik 2001 (4), 3 shared
    assert ev.token.precision == pytest.approx(3 / 4)
    assert ev.token.recall == pytest.approx(3 / 5)
    assert ev.token.f1 == pytest.approx(2 / 3)
    # non-space characters: gold 8 + 4 + 9 = 21, pred 8 + 7 + 4 = 19, shared 15
    assert ev.char.precision == pytest.approx(15 / 19)
    assert ev.char.recall == pytest.approx(15 / 21)
    assert ev.char.f1 == pytest.approx(0.75)
    assert (ev.documents, ev.gold_spans, ev.predicted_spans) == (2, 3, 3)
    assert ev.counts["partial"]["partial"] == 1
    assert ev.predictions["d2"] == []
    # Table 4: DIRECT Anna Berg found exactly; QUASI Oslo missed, Nordvik AS partial.
    assert ev.recall_by_identifier_type == {
        "DIRECT": {"exact": 1.0, "partial": 1.0, "support": 1.0},
        "QUASI": {"exact": 0.0, "partial": 0.25, "support": 2.0},
    }


def test_score_masks_perfect_and_unknown_documents() -> None:
    texts = {"x": "Call Bo Ek now."}
    perfect = score_masks(texts, {"x": [[5, 10]]}, {"x": [(5, 10, "MASK")]})
    assert (perfect.exact.f1, perfect.partial.f1, perfect.token.f1, perfect.char.f1) == (
        1.0,
        1.0,
        1.0,
        1.0,
    )
    with pytest.raises(ValueError):
        score_masks(texts, {"y": [[0, 1]]}, {})


# --------------------------------------------------------------------------- tiny training


@pytest.mark.slow
def test_tiny_training_run_produces_well_formed_mask_spans(tmp_path: Path) -> None:
    gen = SyntheticPeople(seed=5, cities_per_locale=20, companies=100)
    people = list(gen.people(0, 300))
    index = build_index(gen.to_person(i, rec) for i, rec in people)
    gaz = Gazetteer.from_terms(index.terms)
    docs = [gen.document(i, rec, in_kb=True) for i, rec in people[:30]]
    config = masker_config(
        max_length=48,
        window_overlap=8,
        batch_size=8,
        eval_batch_size=16,
        learning_rate=3e-4,
        epochs=10,
        max_steps=20,
        num_threads=1,
        device="cpu",
        seed=3,
    )
    result = train_masker(
        config, docs[:24], docs[24:], index, gaz, 5, 3, "greedy", tmp_path / "m", seed=0
    )
    assert result.training.steps == 20
    assert result.training.labels == ["MASK"]
    assert result.train_stats.documents == 24 and result.dev_stats.documents == 6
    # Every biography names its subject, whose full name is unique among 300 people.
    assert result.train_stats.masks >= 24
    assert set(result.dev_gold) == {d["doc_id"] for d in docs[24:]}

    tagger = load_tagger(result.output_dir, device="cpu")
    dev = docs[24:]
    predictions = tagger.predict_batch([d["text"] for d in dev])
    assert len(predictions) == len(dev)
    n_spans = 0
    for doc, spans in zip(dev, predictions, strict=True):
        text = doc["text"]
        last_end = 0
        for s in spans:
            n_spans += 1
            assert s.label == "MASK"
            assert 0 <= s.start < s.end <= len(text)
            assert s.text == text[s.start : s.end] == s.text.strip()
            assert s.start >= last_end
            last_end = s.end
    assert n_spans > 0
    ev = evaluate_masker(tagger, dev, result.dev_gold)
    assert ev.documents == 6
    assert ev.gold_spans == sum(len(v) for v in result.dev_gold.values())
    assert ev.predicted_spans == n_spans
    assert 0.0 <= ev.exact.f1 <= ev.partial.f1 <= 1.0
