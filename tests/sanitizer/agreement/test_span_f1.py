"""Span F1 with exact and overlapping matches on crafted cases."""

from __future__ import annotations

import pytest

from sanitizer.agreement import count_matches, make_document, pooled_span_f1, span_f1

# Reference A vs candidate B on a 40-character document:
#   (0,5) QUASI    vs (0,5) QUASI      exact, same type
#   (10,15) DIRECT vs (10,13) DIRECT   overlap only, same type
#   (20,25) QUASI  vs (20,25) NO_MASK  exact boundaries, other type
#   --             vs (30,35) QUASI    candidate only
REF = [(0, 5, "QUASI"), (10, 15, "DIRECT"), (20, 25, "QUASI")]
CAND = [(0, 5, "QUASI"), (10, 13, "DIRECT"), (20, 25, "NO_MASK"), (30, 35, "QUASI")]


@pytest.fixture
def docs():
    return [make_document({"A": REF, "B": CAND}, length=40, doc_id="d")]


@pytest.mark.parametrize(
    ("match", "typed", "matched", "precision", "recall", "f1"),
    [
        # exact: (0,5) and (20,25) -> P = 2/4, R = 2/3, F1 = 4/7
        ("exact", False, 2, 0.5, 2 / 3, 4 / 7),
        # exact + same type: only (0,5) -> P = 1/4, R = 1/3, F1 = 2/7
        ("exact", True, 1, 0.25, 1 / 3, 2 / 7),
        # overlap: all three reference spans -> P = 3/4, R = 1, F1 = 6/7
        ("overlap", False, 3, 0.75, 1.0, 6 / 7),
        # overlap + same type: (0,5), (10,13) -> P = 1/2, R = 2/3, F1 = 4/7
        ("overlap", True, 2, 0.5, 2 / 3, 4 / 7),
    ],
)
def test_exact_vs_overlap(docs, match, typed, matched, precision, recall, f1) -> None:
    result = span_f1(docs, "A", "B", match=match, typed=typed)
    assert (result.matched, result.n_reference, result.n_candidate) == (matched, 3, 4)
    assert result.precision == pytest.approx(precision)
    assert result.recall == pytest.approx(recall)
    assert result.f1 == pytest.approx(f1)
    assert result.n_documents == 1


def test_swapping_annotators_swaps_precision_and_recall(docs) -> None:
    forward = span_f1(docs, "A", "B", match="overlap")
    backward = span_f1(docs, "B", "A", match="overlap")
    assert (backward.precision, backward.recall) == (forward.recall, forward.precision)
    assert backward.f1 == forward.f1


def test_identifier_type_filter_keeps_masking_decisions_only(docs) -> None:
    # Without NO_MASK spans: reference 3 spans, candidate (0,5),(10,13),(30,35);
    # overlap matches (0,5) and (10,13): P = R = F1 = 2/3.
    result = span_f1(docs, "A", "B", match="overlap", identifier_types=("DIRECT", "QUASI"))
    assert (result.matched, result.n_reference, result.n_candidate) == (2, 3, 3)
    assert result.f1 == pytest.approx(2 / 3)


def test_overlap_matching_is_one_to_one_and_greedy() -> None:
    doc = make_document(
        {"A": [(0, 10, "QUASI")], "B": [(0, 4, "QUASI"), (5, 10, "QUASI"), (2, 9, "QUASI")]},
        length=12,
    )
    # Overlaps with (0,10): 4, 5 and 7 characters; the longest, (2,9), is taken alone.
    result = span_f1([doc], "A", "B", match="overlap")
    assert (result.matched, result.precision, result.recall) == (1, 1 / 3, 1.0)


def test_exact_match_preferred_over_equally_long_overlap() -> None:
    a = [(0, 10, "QUASI"), (12, 20, "QUASI")]
    b = [(0, 20, "QUASI"), (0, 10, "QUASI")]
    doc = make_document({"A": a, "B": b}, length=20)
    # (0,10) overlaps (0,20) and (0,10) by 10 characters; the exact one wins the tie, leaving
    # (0,20) for (12,20): two matches rather than one.
    assert span_f1([doc], "A", "B", match="overlap").matched == 2


def test_exact_duplicates_match_as_multiset() -> None:
    doc = make_document({"A": [(0, 3, "QUASI"), (0, 3, "QUASI")], "B": [(0, 3, "QUASI")]}, length=5)
    assert count_matches(doc.annotations["A"], doc.annotations["B"], match="exact") == 1


def test_empty_annotators_give_none_not_nan() -> None:
    doc = make_document({"A": [], "B": []}, length=5)
    result = span_f1([doc], "A", "B")
    assert (result.precision, result.recall, result.f1) == (None, None, None)
    one_sided = span_f1([make_document({"A": [(0, 2, "QUASI")], "B": []}, length=5)], "A", "B")
    assert (one_sided.precision, one_sided.recall, one_sided.f1) == (None, 0.0, 0.0)


def test_pooled_f1_micro_averages_pairs_and_documents() -> None:
    d1 = make_document(
        {"A": [(0, 2, "QUASI")], "B": [(0, 2, "QUASI")], "C": [(4, 6, "QUASI")]}, length=8
    )
    d2 = make_document({"A": [(0, 2, "QUASI"), (3, 5, "DIRECT")], "B": []}, length=8)
    # Pairs: AB over d1+d2: 1 match, 3 + 1 spans; AC (d1): 0 matches, 1 + 1; BC (d1): 0, 1 + 1.
    # F1 = 2*1 / (4 + 2 + 2) = 1/4.
    result = pooled_span_f1([d1, d2], match="exact")
    assert result.f1 == pytest.approx(0.25)
    assert result.precision == result.recall == result.f1
    assert (result.n_pairs, result.n_documents) == (3, 2)
