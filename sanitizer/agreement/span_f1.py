"""Pairwise span precision/recall/F1 of a candidate annotator against a reference one.

Spans are matched one-to-one. ``match="exact"``: same start and end (identical
duplicates are matched as a multiset). ``match="overlap"``: any shared character;
candidate pairs are taken greedily by decreasing overlap length, ties broken by the
smaller boundary distance ``|Δstart| + |Δend|`` then by offsets, so an exact match is
preferred over an equally long overlap. With ``typed=True`` a pair must also share the
label of ``label_space`` (by default the identifier type). ``identifier_types`` keeps
only spans of those identifier types on both sides (e.g. ``("DIRECT", "QUASI")`` to
compare masking decisions only).

P = matched / candidate spans, R = matched / reference spans, F1 = 2·matched /
(reference + candidate spans); a ratio with a zero denominator is None. Swapping the
annotators swaps P and R; F1 stays the same unless equal-length, equal-distance
overlaps make the greedy tie-break pick a different (possibly smaller) matching.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from sanitizer.agreement.coefficients import chosen_annotators, shared_documents
from sanitizer.agreement.data import AnnotatedDocument, AnnotatedSpan
from sanitizer.agreement.labels import LabelSpace, check_choice, get_label_space
from sanitizer.metrics import defined_ratio

MATCHES: tuple[str, ...] = ("exact", "overlap")


@dataclass(frozen=True)
class SpanF1:
    """Span P/R/F1 of ``candidate`` against ``reference`` with the counts behind them.

    For a pooled all-pairs summary ``reference``/``candidate`` are ``"*"`` and every pair
    is counted in both directions, so precision = recall = F1.
    """

    reference: str
    candidate: str
    match: str
    typed: bool
    label_space: str
    matched: int
    n_reference: int
    n_candidate: int
    n_documents: int
    precision: float | None
    recall: float | None
    f1: float | None
    n_pairs: int | None = None

    @property
    def value(self) -> float | None:
        """The headline figure (F1), so matrices can treat all measures alike."""
        return self.f1

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict."""
        return asdict(self)


def make_span_f1(
    reference: str,
    candidate: str,
    match: str,
    typed: bool,
    label_space: str,
    counts: tuple[int, int, int],
    n_documents: int,
    n_pairs: int | None = None,
) -> SpanF1:
    """Build a :class:`SpanF1` from ``(matched, n_reference, n_candidate)``."""
    matched, n_ref, n_cand = counts
    return SpanF1(
        reference=reference,
        candidate=candidate,
        match=match,
        typed=typed,
        label_space=label_space,
        matched=matched,
        n_reference=n_ref,
        n_candidate=n_cand,
        n_documents=n_documents,
        precision=defined_ratio(matched, n_cand),
        recall=defined_ratio(matched, n_ref),
        f1=defined_ratio(2 * matched, n_ref + n_cand),
        n_pairs=n_pairs,
    )


def count_matches(
    reference: Sequence[AnnotatedSpan],
    candidate: Sequence[AnnotatedSpan],
    *,
    match: str = "overlap",
    typed: bool = False,
    label_space: str | LabelSpace = "identifier",
) -> int:
    """Number of one-to-one matched span pairs between two span lists."""
    check_choice("match", match, MATCHES)
    space = get_label_space(label_space)
    ref_labels = [space.span_label(span) if typed else "" for span in reference]
    cand_labels = [space.span_label(span) if typed else "" for span in candidate]
    if match == "exact":
        left = Counter((s.start, s.end, lab) for s, lab in zip(reference, ref_labels, strict=True))
        right = Counter(
            (s.start, s.end, lab) for s, lab in zip(candidate, cand_labels, strict=True)
        )
        return sum((left & right).values())
    if not reference or not candidate:
        return 0
    cand_start = np.array([span.start for span in candidate])
    cand_end = np.array([span.end for span in candidate])
    pairs: list[tuple[int, int, int, int, int, int]] = []
    for i, span in enumerate(reference):
        hits = np.nonzero((cand_start < span.end) & (cand_end > span.start))[0]
        for j in hits.tolist():
            if typed and ref_labels[i] != cand_labels[j]:
                continue
            other = candidate[j]
            overlap = min(span.end, other.end) - max(span.start, other.start)
            distance = abs(span.start - other.start) + abs(span.end - other.end)
            pairs.append((-overlap, distance, span.start, other.start, i, j))
    pairs.sort()
    used_ref: set[int] = set()
    used_cand: set[int] = set()
    for *_, i, j in pairs:
        if i not in used_ref and j not in used_cand:
            used_ref.add(i)
            used_cand.add(j)
    return len(used_ref)


def _filtered(
    spans: Sequence[AnnotatedSpan], identifier_types: Collection[str] | None
) -> list[AnnotatedSpan]:
    if identifier_types is None:
        return list(spans)
    return [span for span in spans if span.identifier_type in identifier_types]


def pair_counts(
    documents: Sequence[AnnotatedDocument],
    reference: Hashable,
    candidate: Hashable,
    *,
    match: str = "overlap",
    typed: bool = False,
    label_space: str | LabelSpace = "identifier",
    identifier_types: Collection[str] | None = None,
) -> tuple[tuple[int, int, int], int]:
    """Micro-summed ``(matched, n_reference, n_candidate)`` and the shared-document count."""
    matched = n_ref = n_cand = shared = 0
    for doc in documents:
        if reference not in doc.annotations or candidate not in doc.annotations:
            continue
        shared += 1
        ref = _filtered(doc.annotations[reference], identifier_types)
        cand = _filtered(doc.annotations[candidate], identifier_types)
        matched += count_matches(ref, cand, match=match, typed=typed, label_space=label_space)
        n_ref += len(ref)
        n_cand += len(cand)
    return (matched, n_ref, n_cand), shared


def span_f1(
    documents: Sequence[AnnotatedDocument],
    reference: Hashable,
    candidate: Hashable,
    *,
    match: str = "overlap",
    typed: bool = False,
    label_space: str | LabelSpace = "identifier",
    identifier_types: Collection[str] | None = None,
) -> SpanF1:
    """P/R/F1 of ``candidate`` against ``reference``, counts micro-summed over shared documents."""
    space = get_label_space(label_space)
    counts, shared = pair_counts(
        documents,
        reference,
        candidate,
        match=match,
        typed=typed,
        label_space=space,
        identifier_types=identifier_types,
    )
    return make_span_f1(str(reference), str(candidate), match, typed, space.name, counts, shared)


def pooled_span_f1(
    documents: Sequence[AnnotatedDocument],
    *,
    annotators: Sequence[Hashable] | None = None,
    match: str = "overlap",
    typed: bool = False,
    label_space: str | LabelSpace = "identifier",
    identifier_types: Collection[str] | None = None,
) -> SpanF1:
    """Symmetric span F1 micro-averaged over every annotator pair and shared document."""
    space = get_label_space(label_space)
    names = chosen_annotators(documents, annotators)
    matched = total = n_pairs = 0
    used_docs: set[int] = set()
    for a, b in itertools.combinations(names, 2):
        (m, n_a, n_b), shared = pair_counts(
            documents,
            a,
            b,
            match=match,
            typed=typed,
            label_space=space,
            identifier_types=identifier_types,
        )
        if shared == 0:
            continue
        n_pairs += 1
        matched += 2 * m
        total += n_a + n_b
        used_docs.update(shared_documents(documents, a, b))
    return make_span_f1(
        "*", "*", match, typed, space.name, (matched, total, total), len(used_docs), n_pairs
    )
