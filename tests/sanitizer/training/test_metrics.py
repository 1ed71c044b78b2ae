"""Hand-checked values for the cheap dev metrics."""

from __future__ import annotations

import pytest

from sanitizer.training.metrics import entity_prf, token_prf
from sanitizer.types import EntitySpan


def span(start: int, end: int, label: str) -> EntitySpan:
    return EntitySpan(start, end, label, "x" * (end - start))


def test_token_prf_merges_b_and_i_and_ignores_o() -> None:
    gold = ["B-PER", "I-PER", "O", "B-LOC", "O"]
    pred = ["B-PER", "B-PER", "B-LOC", "O", "O"]
    # PER: 2 true positives. LOC: gold token 3 missed, token 2 is a false positive.
    # micro P = 2 / 3, R = 2 / 3.
    m = token_prf(gold, pred, ["PER", "LOC"])
    assert m["token_precision"] == pytest.approx(2 / 3)
    assert m["token_recall"] == pytest.approx(2 / 3)
    assert m["token_f1"] == pytest.approx(2 / 3)


def test_entity_prf_exact_and_partial() -> None:
    gold = [[span(0, 4, "PER"), span(10, 15, "LOC")], [span(3, 5, "PER")]]
    pred = [[span(0, 4, "PER"), span(11, 15, "LOC"), span(20, 22, "PER")], []]
    m = entity_prf(gold, pred)
    # exact: only (0, 4, PER) -> P = 1/3, R = 1/3
    assert m["entity_exact_precision"] == pytest.approx(1 / 3)
    assert m["entity_exact_recall"] == pytest.approx(1 / 3)
    assert m["entity_exact_f1"] == pytest.approx(1 / 3)
    # partial: 2 of 3 predictions overlap a same-label gold span; 2 of 3 gold are hit
    assert m["entity_partial_precision"] == pytest.approx(2 / 3)
    assert m["entity_partial_recall"] == pytest.approx(2 / 3)
    assert m["gold_entities"] == 3
    assert m["predicted_entities"] == 3


def test_entity_prf_label_must_match_for_partial() -> None:
    m = entity_prf([[span(0, 4, "PER")]], [[span(0, 4, "LOC")]])
    assert m["entity_exact_f1"] == 0.0
    assert m["entity_partial_f1"] == 0.0
