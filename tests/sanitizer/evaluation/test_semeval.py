"""SemEval-2013 task 9 entity scores on hand-built span sets."""

from __future__ import annotations

import pytest

from sanitizer.evaluation import LabeledSpan, semeval_scores
from sanitizer.evaluation.spans import SpanLike
from sanitizer.types import EntitySpan

GOLD = [(0, 10, "PER"), (20, 30, "LOC"), (40, 50, "ORG"), (80, 90, "DATE")]
PRED = [
    (0, 10, "PER"),  # exact boundaries, same type
    (22, 30, "LOC"),  # overlap, same type
    (40, 50, "PER"),  # exact boundaries, other type
    (60, 70, "ORG"),  # spurious
]


def test_exact_vs_partial_on_overlapping_spans() -> None:
    r = semeval_scores([list(s) for s in GOLD], [list(s) for s in PRED])
    d = r.to_dict()
    # strict: COR 1, INC 2, MIS 1, SPU 1 -> 1/4, 1/4
    assert (d["strict"]["correct"], d["strict"]["incorrect"]) == (1, 2)
    assert (d["strict"]["missed"], d["strict"]["spurious"]) == (1, 1)
    assert r.precision("strict") == pytest.approx(1 / 4)
    assert r.recall("strict") == pytest.approx(1 / 4)
    # exact (boundaries only): COR 2, INC 1 -> 2/4
    assert (d["exact"]["correct"], d["exact"]["incorrect"]) == (2, 1)
    assert r.precision("exact") == pytest.approx(0.5)
    assert r.recall("exact") == pytest.approx(0.5)
    assert r.f1("exact") == pytest.approx(0.5)
    # partial: COR 2, PAR 1 -> (2 + 0.5) / 4
    assert (d["partial"]["correct"], d["partial"]["partial"]) == (2, 1)
    assert r.precision("partial") == pytest.approx(2.5 / 4)
    assert r.recall("partial") == pytest.approx(2.5 / 4)
    # type (some overlap, same type): COR 2 (PER exact, LOC overlap), INC 1
    assert (d["type"]["correct"], d["type"]["incorrect"]) == (2, 1)
    assert r.precision("type") == pytest.approx(0.5)
    for scheme in d:
        assert (d[scheme]["possible"], d[scheme]["actual"]) == (4, 4)


def test_without_labels_strict_equals_exact() -> None:
    gold = [(s, e) for s, e, _ in GOLD]
    pred = [(s, e) for s, e, _ in PRED]
    r = semeval_scores(gold, pred)
    # Boundaries: (0,10) and (40,50) exact, (22,30) partial, (60,70) spurious, (80,90) missed.
    assert r.precision("strict") == r.precision("exact") == pytest.approx(2 / 4)
    assert r.recall("partial") == pytest.approx(2.5 / 4)
    labeled_ignored = semeval_scores(list(GOLD), list(PRED), use_labels=False)
    assert labeled_ignored.to_dict() == r.to_dict()


def test_one_gold_split_in_two_predictions() -> None:
    # One-to-one pairing: one prediction is a partial match, the other spurious.
    r = semeval_scores([(0, 20)], [(0, 8), (10, 20)])
    c = r.counts["partial"]
    assert (c.correct, c.partial, c.spurious, c.missed) == (0, 1, 1, 0)
    assert r.precision("partial") == pytest.approx(0.25)
    assert r.recall("partial") == pytest.approx(0.5)
    assert r.f1("partial") == pytest.approx(2 * 0.25 * 0.5 / 0.75)
    assert r.precision("exact") == 0.0


def test_exact_match_is_preferred_over_overlap() -> None:
    # (0,10) could pair with gold (0,10) exactly or with gold (5,15) by overlap.
    r = semeval_scores([(0, 10), (5, 15)], [(0, 10)])
    c = r.counts["exact"]
    assert (c.correct, c.missed) == (1, 1)


def test_documents_and_span_types() -> None:
    gold: dict[str, list[SpanLike]] = {
        "a": [EntitySpan(0, 4, "PERSON", "Anna")],
        "b": [{"start": 0, "end": 3, "label": "LOC"}],
    }
    pred: dict[str, list[SpanLike]] = {"a": [LabeledSpan(0, 4, "PERSON")], "c": [[0, 2, "LOC"]]}
    r = semeval_scores(gold, pred)
    c = r.counts["strict"]
    # doc a: correct; doc b: gold missed; doc c: prediction spurious.
    assert (c.correct, c.missed, c.spurious) == (1, 1, 1)
    assert r.precision("strict") == pytest.approx(1 / 2)
    assert r.recall("strict") == pytest.approx(1 / 2)


def test_empty_sides() -> None:
    r = semeval_scores([], [])
    assert r.precision("exact") == r.recall("exact") == r.f1("exact") == 0.0
    r = semeval_scores([(0, 3)], [])
    assert r.counts["exact"].missed == 1
    assert r.recall("exact") == 0.0
