"""Chance-corrected agreement: Cohen's kappa (pairs), Light's kappa and Krippendorff's alpha.

All three pool units over documents: a pair's kappa uses the units of every document
both annotators annotated; alpha uses one reliability matrix whose columns are the units
of all documents, an annotator who did not annotate a document being *missing* there
(not NONE), which alpha handles natively. Light's kappa is the unweighted mean of the
pairwise Cohen's kappas that are defined (Light 1971; Artstein & Poesio 2008, §3.2).

Kappa comes from scikit-learn's ``cohen_kappa_score``, fed the pair's contingency table
as label pairs with sample weights (same value as one row per unit, without the memory).
Alpha comes from the ``krippendorff`` package (nominal metric) fed per-unit value counts.
Undefined values are ``None`` with a ``reason``, never NaN: no units; a kappa pair where
both annotators used one and the same label everywhere (chance agreement 1, kappa 0/0);
an alpha where every pairable value is the same label (expected disagreement 0).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import krippendorff
import numpy as np
import numpy.typing as npt
from sklearn.metrics import cohen_kappa_score

from sanitizer.agreement.data import AnnotatedDocument
from sanitizer.agreement.labels import LabelSpace, get_label_space, units

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Agreement:
    """One agreement coefficient and what it rests on.

    ``scope`` is None at span level. ``n_units`` counts units (for alpha: pairable units,
    i.e. with at least two annotators; for Light's kappa: summed over the pairs used).
    ``n_pairs`` is set for Light's kappa only: pairs whose kappa is defined.
    """

    coefficient: str
    level: str
    label_space: str
    scope: str | None
    value: float | None
    reason: str | None
    n_units: int
    n_documents: int
    annotators: tuple[str, ...]
    observed_agreement: float | None = None
    n_pairs: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict."""
        out = asdict(self)
        out["annotators"] = list(self.annotators)
        return out


def kappa_from_table(table: npt.NDArray[np.int64]) -> tuple[float | None, str | None]:
    """Cohen's kappa of a square contingency table (rows: annotator A, columns: B).

    Returns ``(kappa, None)`` or ``(None, reason)`` when kappa is undefined.
    """
    total = int(table.sum())
    if total == 0:
        return None, "no units to compare"
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    if np.count_nonzero(rows) == 1 and np.array_equal(np.nonzero(rows), np.nonzero(cols)):
        return None, "both annotators gave every unit the same label: chance agreement is 1"
    first, second = np.nonzero(table)
    value = cohen_kappa_score(
        first,
        second,
        labels=list(range(table.shape[0])),
        sample_weight=table[first, second],
    )
    return float(value), None


def alpha_from_value_counts(value_counts: npt.NDArray[np.int64]) -> tuple[float | None, str | None]:
    """Nominal Krippendorff's alpha from a ``(units, labels)`` count matrix.

    Units with fewer than two values are dropped first (they carry no pairable value).
    """
    pairable = value_counts[value_counts.sum(axis=1) >= 2]
    if pairable.shape[0] == 0:
        return None, "no unit was labelled by two or more annotators"
    if np.count_nonzero(pairable.sum(axis=0)) < 2:
        return None, "every pairable value is the same label: expected disagreement is 0"
    value = krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal")
    return float(value), None


def pair_table(
    documents: Sequence[AnnotatedDocument],
    a: Hashable,
    b: Hashable,
    space: LabelSpace,
    level: str,
    scope: str,
) -> tuple[npt.NDArray[np.int64], int]:
    """Contingency table of ``a`` (rows) against ``b`` pooled over shared documents.

    Returns the table and the number of documents both annotated.
    """
    size = len(space.labels)
    table = np.zeros((size, size), dtype=np.int64)
    shared = 0
    for doc in documents:
        if a not in doc.annotations or b not in doc.annotations:
            continue
        shared += 1
        codes = units(doc, [a, b], space, level, scope)
        table += np.bincount(codes[0] * size + codes[1], minlength=size * size).reshape(size, size)
    return table, shared


def cohen_kappa(
    documents: Sequence[AnnotatedDocument],
    a: Hashable,
    b: Hashable,
    *,
    level: str = "character",
    label_space: str | LabelSpace = "identifier",
    scope: str = "all",
) -> Agreement:
    """Cohen's kappa between annotators ``a`` and ``b`` over the documents both annotated."""
    space = get_label_space(label_space)
    table, shared = pair_table(documents, a, b, space, level, scope)
    total = int(table.sum())
    value, reason = kappa_from_table(table)
    if shared == 0:
        reason = "the two annotators share no document"
    return Agreement(
        coefficient="cohen_kappa",
        level=level,
        label_space=space.name,
        scope=scope if level == "character" else None,
        value=value,
        reason=reason,
        n_units=total,
        n_documents=shared,
        annotators=(str(a), str(b)),
        observed_agreement=float(np.trace(table) / total) if total else None,
    )


def all_annotators(documents: Sequence[AnnotatedDocument]) -> list[Hashable]:
    """Every annotator name, in order of first appearance."""
    return list(dict.fromkeys(name for doc in documents for name in doc.annotations))


def chosen_annotators(
    documents: Sequence[AnnotatedDocument], annotators: Sequence[Hashable] | None
) -> list[Hashable]:
    """The given annotators, or every annotator of ``documents`` when none are given."""
    return list(annotators) if annotators is not None else all_annotators(documents)


def shared_documents(
    documents: Sequence[AnnotatedDocument], first: Hashable, second: Hashable
) -> set[int]:
    """Positions of the documents both annotators annotated."""
    return {
        i
        for i, doc in enumerate(documents)
        if first in doc.annotations and second in doc.annotations
    }


def light_kappa(
    documents: Sequence[AnnotatedDocument],
    *,
    annotators: Sequence[Hashable] | None = None,
    level: str = "character",
    label_space: str | LabelSpace = "identifier",
    scope: str = "all",
) -> Agreement:
    """Mean of the defined pairwise Cohen's kappas over all annotator pairs sharing a document."""
    space = get_label_space(label_space)
    names = chosen_annotators(documents, annotators)
    values: list[float] = []
    n_units = 0
    used_docs: set[int] = set()
    undefined = 0
    for a, b in itertools.combinations(names, 2):
        pair = cohen_kappa(documents, a, b, level=level, label_space=space, scope=scope)
        if pair.n_documents == 0:
            continue
        if pair.value is None:
            undefined += 1
            continue
        values.append(pair.value)
        n_units += pair.n_units
        used_docs.update(shared_documents(documents, a, b))
    reason = None
    if not values:
        reason = (
            f"no pair has a defined kappa ({undefined} pairs undefined)"
            if undefined
            else "no two annotators share a document"
        )
    return Agreement(
        coefficient="light_kappa",
        level=level,
        label_space=space.name,
        scope=scope if level == "character" else None,
        value=float(np.mean(values)) if values else None,
        reason=reason,
        n_units=n_units,
        n_documents=len(used_docs),
        annotators=tuple(str(name) for name in names),
        n_pairs=len(values),
    )


def krippendorff_alpha(
    documents: Sequence[AnnotatedDocument],
    *,
    annotators: Sequence[Hashable] | None = None,
    level: str = "character",
    label_space: str | LabelSpace = "identifier",
    scope: str = "all",
) -> Agreement:
    """Nominal Krippendorff's alpha of all (or the given) annotators, units pooled over documents.

    Per document, units are built from the spans of the selected annotators who annotated
    it; documents with fewer than two of them contribute nothing.
    """
    space = get_label_space(label_space)
    names = chosen_annotators(documents, annotators)
    size = len(space.labels)
    blocks: list[npt.NDArray[np.int64]] = []
    n_documents = 0
    for doc in documents:
        present = [name for name in names if name in doc.annotations]
        if len(present) < 2:
            continue
        n_documents += 1
        codes = units(doc, present, space, level, scope)
        # One-hot sum over annotators: value_counts[unit, label].
        counts = np.zeros((codes.shape[1], size), dtype=np.int64)
        for row in codes:
            counts[np.arange(codes.shape[1]), row] += 1
        blocks.append(counts)
    value_counts = np.concatenate(blocks) if blocks else np.zeros((0, size), dtype=np.int64)
    value: float | None
    reason: str | None
    if len(names) < 2:
        value, reason = None, "alpha needs at least two annotators"
    else:
        value, reason = alpha_from_value_counts(value_counts)
    return Agreement(
        coefficient="krippendorff_alpha",
        level=level,
        label_space=space.name,
        scope=scope if level == "character" else None,
        value=value,
        reason=reason,
        n_units=int((value_counts.sum(axis=1) >= 2).sum()),
        n_documents=n_documents,
        annotators=tuple(str(name) for name in names),
    )
