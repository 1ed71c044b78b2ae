"""Annotator-by-annotator matrices, reference comparisons and per-document/project reports.

Pairwise measures are registered by name in :data:`pairwise_measures` (each takes
``documents, a, b, **options`` and returns a result with ``.value``, ``.n_documents``
and ``.as_dict()``), so a view or a setting can ask for ``"cohen_kappa"`` with
``level="span"`` or ``"span_f1"`` with ``match="exact"``. Machine runs and gold are
just annotators: :func:`reference_agreement` compares one named reference (gold) with
every other annotator.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sanitizer.agreement.coefficients import (
    Agreement,
    all_annotators,
    chosen_annotators,
    cohen_kappa,
    krippendorff_alpha,
    light_kappa,
)
from sanitizer.agreement.data import AnnotatedDocument, multi_annotated
from sanitizer.agreement.labels import LEVELS
from sanitizer.agreement.span_f1 import MATCHES, SpanF1, pooled_span_f1, span_f1
from sanitizer.registry import Registry


class PairResult(Protocol):
    """What a pairwise measure returns."""

    @property
    def value(self) -> float | None: ...

    @property
    def n_documents(self) -> int: ...

    def as_dict(self) -> dict[str, Any]: ...


PairwiseMeasure = Callable[..., PairResult]
pairwise_measures: Registry[PairwiseMeasure] = Registry("pairwise measure")
pairwise_measures.register("cohen_kappa")(cohen_kappa)
pairwise_measures.register("span_f1")(span_f1)


@dataclass(frozen=True)
class AgreementMatrix:
    """A pairwise measure for every ordered annotator pair.

    ``values[i][j]`` is the measure with ``names[i]`` as first argument (the reference,
    for span F1: the cell is F1 of ``names[j]`` against ``names[i]``) and ``names[j]``
    as second; ``n_documents[i][j]`` the documents it rests on. Diagonal cells and pairs
    sharing no document are None (with 0 documents).
    """

    measure: str
    options: dict[str, Any]
    names: tuple[str, ...]
    values: list[list[float | None]]
    n_documents: list[list[int]]
    cells: list[list[dict[str, Any] | None]] = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict (``cells`` holds each pair's full result)."""
        return {
            "measure": self.measure,
            "options": dict(self.options),
            "names": list(self.names),
            "values": [list(row) for row in self.values],
            "n_documents": [list(row) for row in self.n_documents],
            "cells": [list(row) for row in self.cells],
        }

    def get(self, a: Hashable, b: Hashable) -> float | None:
        """The value for the pair ``(a, b)``."""
        return self.values[self.names.index(str(a))][self.names.index(str(b))]


def agreement_matrix(
    documents: Sequence[AnnotatedDocument],
    measure: str = "cohen_kappa",
    *,
    annotators: Sequence[Hashable] | None = None,
    **options: Any,
) -> AgreementMatrix:
    """Compute the registered pairwise ``measure`` for every ordered annotator pair."""
    func = pairwise_measures.get(measure)
    names = chosen_annotators(documents, annotators)
    values: list[list[float | None]] = []
    support: list[list[int]] = []
    cells: list[list[dict[str, Any] | None]] = []
    for a in names:
        value_row: list[float | None] = []
        support_row: list[int] = []
        cell_row: list[dict[str, Any] | None] = []
        for b in names:
            result = None if a == b else func(documents, a, b, **options)
            if result is None or result.n_documents == 0:
                value_row.append(None)
                support_row.append(0)
                cell_row.append(None)
            else:
                value_row.append(result.value)
                support_row.append(result.n_documents)
                cell_row.append(result.as_dict())
        values.append(value_row)
        support.append(support_row)
        cells.append(cell_row)
    return AgreementMatrix(
        measure, dict(options), tuple(str(n) for n in names), values, support, cells
    )


@dataclass(frozen=True)
class ReferenceAgreement:
    """A pairwise measure of each annotator against one reference annotator (e.g. gold)."""

    reference: str
    measure: str
    options: dict[str, Any]
    results: dict[str, dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict."""
        return {
            "reference": self.reference,
            "measure": self.measure,
            "options": dict(self.options),
            "results": {name: dict(result) for name, result in self.results.items()},
        }


def reference_agreement(
    documents: Sequence[AnnotatedDocument],
    reference: Hashable,
    measure: str = "span_f1",
    *,
    annotators: Sequence[Hashable] | None = None,
    **options: Any,
) -> ReferenceAgreement:
    """Compare ``reference`` (first argument) with every other annotator sharing a document.

    For ``span_f1`` this gives each system's precision/recall/F1 against gold.
    """
    func = pairwise_measures.get(measure)
    names = chosen_annotators(documents, annotators)
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        if name == reference:
            continue
        result = func(documents, reference, name, **options)
        if result.n_documents:
            results[str(name)] = result.as_dict()
    return ReferenceAgreement(str(reference), measure, dict(options), results)


@dataclass(frozen=True)
class AgreementReport:
    """Agreement of a set of documents: coefficients and pooled span F1.

    Only documents with two or more annotators are used (``n_documents``);
    ``n_skipped_documents`` had fewer. ``documents`` holds per-document reports when asked.
    """

    n_documents: int
    n_skipped_documents: int
    annotators: tuple[str, ...]
    coefficients: list[Agreement]
    span_f1: list[SpanF1]
    doc_id: str | None = None
    documents: list[AgreementReport] = field(default_factory=list)

    def find(
        self, coefficient: str, level: str, label_space: str, scope: str | None = None
    ) -> Agreement:
        """The coefficient with these settings (``scope`` matters at character level only)."""
        for item in self.coefficients:
            if (item.coefficient, item.level, item.label_space) == (
                coefficient,
                level,
                label_space,
            ) and (level != "character" or scope is None or item.scope == scope):
                return item
        raise KeyError(f"no {coefficient} at {level} level for {label_space!r}")

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict."""
        return {
            "doc_id": self.doc_id,
            "n_documents": self.n_documents,
            "n_skipped_documents": self.n_skipped_documents,
            "annotators": list(self.annotators),
            "coefficients": [item.as_dict() for item in self.coefficients],
            "span_f1": [item.as_dict() for item in self.span_f1],
            "documents": [doc.as_dict() for doc in self.documents],
        }


def _report(
    docs: Sequence[AnnotatedDocument],
    skipped: int,
    label_spaces: Sequence[str],
    scopes: Sequence[str],
    identifier_types: Collection[str] | None,
    doc_id: str | None,
) -> AgreementReport:
    coefficients: list[Agreement] = []
    for level in LEVELS:
        for space in label_spaces:
            for scope in scopes if level == "character" else scopes[:1]:
                options = {"level": level, "label_space": space, "scope": scope}
                coefficients.append(light_kappa(docs, **options))
                coefficients.append(krippendorff_alpha(docs, **options))
    f1s = [
        pooled_span_f1(docs, match=match, typed=typed, identifier_types=identifier_types)
        for match in MATCHES
        for typed in (False, True)
    ]
    return AgreementReport(
        n_documents=len(docs),
        n_skipped_documents=skipped,
        annotators=tuple(str(name) for name in all_annotators(docs)),
        coefficients=coefficients,
        span_f1=f1s,
        doc_id=doc_id,
    )


def agreement_report(
    documents: Sequence[AnnotatedDocument],
    *,
    label_spaces: Sequence[str] = ("identifier", "masked"),
    scopes: Sequence[str] = ("all",),
    identifier_types: Collection[str] | None = None,
    per_document: bool = False,
) -> AgreementReport:
    """Project-level agreement (units pooled over documents) and optionally per document.

    For each level (character, span), label space and (at character level) scope:
    Light's kappa and Krippendorff's alpha; then span F1 pooled over all pairs for
    exact/overlap, each untyped and typed (typed = same identifier type).
    """
    docs = multi_annotated(documents)
    report = _report(docs, len(documents) - len(docs), label_spaces, scopes, identifier_types, None)
    if not per_document:
        return report
    per_doc = [
        _report([doc], 0, label_spaces, scopes, identifier_types, doc.doc_id) for doc in docs
    ]
    return AgreementReport(
        n_documents=report.n_documents,
        n_skipped_documents=report.n_skipped_documents,
        annotators=report.annotators,
        coefficients=report.coefficients,
        span_f1=report.span_f1,
        documents=per_doc,
    )
