"""Reads: annotation sets from the database as ``sanitizer.agreement`` inputs, and the
agreement figures the review pages show (per document, per project, machine vs gold).

Every set of a document becomes one *annotator* of an
:class:`~sanitizer.agreement.AnnotatedDocument`: a human set is named after its
annotator's username, the gold set ``"gold"``, a machine run ``"machine:<source name>"``
(the newest run of that name when a document has several). Human agreement uses the
human sets only; machine runs (and the humans) are compared with gold separately.
All coefficients use the ``identifier`` label space (DIRECT / QUASI / NO_MASK / NONE)
as in seed 000, Table 1, with every non-whitespace character as a character unit.

Only annotator sets that were handed in count (``COUNTED_SET_STATUSES``: submitted,
or reviewed after publication); ``include_in_progress`` adds the sets still being
worked on, for a reviewer who wants to look at them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count

from annotation.models import AnnotationSet, Document, Project, SetKind, SetStatus, Span
from annotation.selectors.access import COUNTED_SET_STATUSES
from sanitizer.agreement import (
    AnnotatedDocument,
    cohen_kappa,
    krippendorff_alpha,
    light_kappa,
    make_document,
    pooled_span_f1,
    span_f1,
)
from sanitizer.intervals import coverage_mask, merge_intervals

GOLD = "gold"
MACHINE_PREFIX = "machine:"
LEVELS = ("character", "span")
MATCHES = ("exact", "overlap")


def set_name(annotation_set: AnnotationSet) -> str:
    """The annotator name a set takes in agreement inputs."""
    if annotation_set.kind == SetKind.GOLD:
        return GOLD
    if annotation_set.kind == SetKind.MACHINE:
        return f"{MACHINE_PREFIX}{annotation_set.source_name or annotation_set.source}"
    assert annotation_set.annotator is not None
    return str(annotation_set.annotator.get_username())


@dataclass
class DocumentSets:
    """One document as an agreement input, with the kind of each named set."""

    document: AnnotatedDocument
    humans: list[str] = field(default_factory=list)
    machines: list[str] = field(default_factory=list)
    has_gold: bool = False


def _chosen_sets(sets: Iterable[AnnotationSet]) -> dict[str, AnnotationSet]:
    chosen: dict[str, AnnotationSet] = {}
    # Oldest first, so the newest machine run of a name wins.
    for annotation_set in sorted(sets, key=lambda s: (s.created_at, s.pk)):
        chosen[set_name(annotation_set)] = annotation_set
    return chosen


def documents_as_agreement_input(
    *, documents: Iterable[Document], human_statuses: Sequence[str] | None = None
) -> list[DocumentSets]:
    """Turn documents and their sets into agreement inputs (two queries per batch).

    ``human_statuses`` keeps only human sets with one of these statuses (e.g. leave
    out sets still in progress); machine and gold sets are always kept.
    """
    documents = list(documents)
    by_document: dict[int, list[AnnotationSet]] = defaultdict(list)
    sets = AnnotationSet.objects.filter(document__in=documents).select_related("annotator")
    for annotation_set in sets:
        if (
            human_statuses is not None
            and annotation_set.kind == SetKind.HUMAN
            and annotation_set.status not in human_statuses
        ):
            continue
        by_document[annotation_set.document_id].append(annotation_set)
    set_ids = [s.pk for group in by_document.values() for s in group]
    spans: dict[int, list[tuple[int, int, str, str]]] = defaultdict(list)
    for set_id, start, end, identifier_type, entity_type in Span.objects.filter(
        annotation_set_id__in=set_ids
    ).values_list("annotation_set_id", "start", "end", "identifier_type", "entity_type"):
        spans[set_id].append((start, end, identifier_type, entity_type))
    out = []
    for document in documents:
        chosen = _chosen_sets(by_document.get(document.pk, []))
        annotated = make_document(
            {name: spans.get(s.pk, []) for name, s in chosen.items()},
            text=document.text,
            doc_id=document.external_id,
        )
        out.append(
            DocumentSets(
                document=annotated,
                humans=[n for n, s in chosen.items() if s.kind == SetKind.HUMAN],
                machines=[n for n, s in chosen.items() if s.kind == SetKind.MACHINE],
                has_gold=GOLD in chosen,
            )
        )
    return out


def _value(result: Any) -> float | None:
    return None if result is None else result.value


def _pair_figures(docs: Sequence[AnnotatedDocument], a: str, b: str) -> dict[str, Any]:
    """Kappa (character and span level) and span F1 (exact and overlap) of one pair;
    ``a`` is the reference for F1 (precision/recall of ``b`` against it)."""
    out: dict[str, Any] = {"a": a, "b": b}
    for level in LEVELS:
        kappa = cohen_kappa(docs, a, b, level=level, label_space="identifier")
        out[f"kappa_{level}"] = kappa.value
        out[f"n_units_{level}"] = kappa.n_units
        out["n_documents"] = kappa.n_documents
    for match in MATCHES:
        f1 = span_f1(docs, a, b, match=match)
        out[f"f1_{match}"] = f1.f1
        out[f"precision_{match}"] = f1.precision
        out[f"recall_{match}"] = f1.recall
        out[f"matched_{match}"] = f1.matched
    out["n_spans_a"] = f1.n_reference
    out["n_spans_b"] = f1.n_candidate
    return out


def _coefficients(docs: Sequence[AnnotatedDocument], names: Sequence[str]) -> dict[str, Any]:
    """Kappa (Cohen's for two annotators, Light's mean over pairs for more) and
    Krippendorff's alpha at both levels, and span F1 pooled over pairs."""
    out: dict[str, Any] = {}
    for level in LEVELS:
        kappa = light_kappa(docs, annotators=names, level=level, label_space="identifier")
        alpha = krippendorff_alpha(docs, annotators=names, level=level, label_space="identifier")
        out[f"kappa_{level}"] = kappa.value
        out[f"alpha_{level}"] = alpha.value
        out[f"alpha_{level}_units"] = alpha.n_units
        if kappa.reason and f"kappa_{level}_reason" not in out:
            out[f"kappa_{level}_reason"] = kappa.reason
        if alpha.reason:
            out[f"alpha_{level}_reason"] = alpha.reason
    for match in MATCHES:
        out[f"f1_{match}"] = pooled_span_f1(docs, annotators=names, match=match).f1
    return out


def agreement_summary(items: Sequence[DocumentSets]) -> dict[str, Any]:
    """Human agreement (coefficients, pairs, annotator × annotator matrices) and every
    other set (machine runs, and each human) against gold, pooled over ``items``."""
    docs = [item.document for item in items]
    humans = list(dict.fromkeys(name for item in items for name in item.humans))
    machines = list(dict.fromkeys(name for item in items for name in item.machines))
    multi = [item.document for item in items if len(item.humans) >= 2]
    pairs = [
        _pair_figures(docs, a, b)
        for a, b in itertools.combinations(humans, 2)
        if any(a in d.annotations and b in d.annotations for d in docs)
    ]
    matrices: dict[str, list[list[float | None]]] = {}
    by_pair = {(p["a"], p["b"]): p for p in pairs}
    for measure in ("kappa_character", "kappa_span", "f1_exact", "f1_overlap"):
        rows = []
        for a in humans:
            row: list[float | None] = []
            for b in humans:
                pair = by_pair.get((a, b)) or by_pair.get((b, a))
                row.append(None if a == b or pair is None else pair[measure])
            rows.append(row)
        matrices[measure] = rows
    gold_docs = [item.document for item in items if item.has_gold]
    against_gold = []
    for name in [*machines, *humans]:
        shared = [d for d in gold_docs if name in d.annotations]
        if not shared:
            continue
        figures = _pair_figures(shared, GOLD, name)
        for level in LEVELS:
            figures[f"alpha_{level}"] = krippendorff_alpha(
                shared, annotators=[GOLD, name], level=level, label_space="identifier"
            ).value
        figures["kind"] = "machine" if name.startswith(MACHINE_PREFIX) else "human"
        against_gold.append(figures)
    return {
        "label_space": "identifier",
        "n_documents": len(items),
        "n_multi_annotated": len(multi),
        "n_gold": len(gold_docs),
        "annotators": humans,
        "machines": machines,
        "coefficients": _coefficients(multi, humans) if len(humans) >= 2 else None,
        "pairs": pairs,
        "matrix": {"names": humans, **matrices},
        "against_gold": against_gold,
    }


def _human_statuses(include_in_progress: bool) -> Sequence[str] | None:
    return None if include_in_progress else COUNTED_SET_STATUSES


def document_agreement(*, document: Document, include_in_progress: bool = False) -> dict[str, Any]:
    """Agreement of one document's sets."""
    (item,) = documents_as_agreement_input(
        documents=[document], human_statuses=_human_statuses(include_in_progress)
    )
    summary = agreement_summary([item])
    summary["document"] = {"id": document.pk, "external_id": document.external_id}
    return summary


def project_agreement(*, project: Project, include_in_progress: bool = False) -> dict[str, Any]:
    """Agreement pooled over the project's documents, plus a short line per document."""
    documents = list(project.documents.order_by("position", "id"))
    items = documents_as_agreement_input(
        documents=documents, human_statuses=_human_statuses(include_in_progress)
    )
    summary = agreement_summary(items)
    per_document = []
    for document, item in zip(documents, items, strict=True):
        row: dict[str, Any] = {
            "id": document.pk,
            "external_id": document.external_id,
            "status": document.status,
            "annotators": item.humans,
            "has_gold": item.has_gold,
        }
        if len(item.humans) >= 2:
            coefficients = _coefficients([item.document], item.humans)
            row.update(
                {
                    key: coefficients[key]
                    for key in ("kappa_character", "alpha_character", "alpha_span", "f1_overlap")
                }
            )
            row["kappa_span"] = coefficients["kappa_span"]
        per_document.append(row)
    summary["documents"] = per_document
    summary["project"] = {"id": project.pk, "name": project.name}
    return summary


# --- disagreements --------------------------------------------------------------------------


SpanKey = tuple[int, int, str, str]


def span_units(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlap components of spans: the agreement units (touching spans stay apart)."""
    return merge_intervals(spans, touching=False)


def counted_human_sets(
    *, document: Document, include_in_progress: bool = False
) -> list[AnnotationSet]:
    """The document's annotator sets that count in review (see the module docstring)."""
    sets = document.annotation_sets.filter(kind=SetKind.HUMAN).select_related("annotator")
    if not include_in_progress:
        sets = sets.filter(status__in=COUNTED_SET_STATUSES)
    return list(sets.order_by("id"))


def document_disagreements(
    *,
    document: Document,
    human_sets: Sequence[AnnotationSet] | None = None,
    include_in_progress: bool = False,
) -> list[dict[str, Any]]:
    """The units (overlap components of every human span) on which the human sets differ.

    Two sets agree on a unit when they hold the same spans there: same offsets, entity
    type and identifier type. Returns ``{"start", "end", "versions": {name: [keys]}}``.
    """
    if human_sets is None:
        human_sets = counted_human_sets(document=document, include_in_progress=include_in_progress)
    keys: dict[str, list[SpanKey]] = {}
    for annotation_set in human_sets:
        keys[set_name(annotation_set)] = sorted(
            annotation_set.spans.values_list("start", "end", "entity_type", "identifier_type")
        )
    units = span_units((k[0], k[1]) for spans in keys.values() for k in spans)
    out = []
    for start, end in units:
        versions = {
            name: [k for k in spans if start <= k[0] and k[1] <= end]
            for name, spans in keys.items()
        }
        distinct = {tuple(v) for v in versions.values()}
        if len(distinct) > 1:
            out.append({"start": start, "end": end, "versions": versions})
    return out


def annotators_in_progress(*, document: Document) -> list[dict[str, Any]]:
    """Annotator sets of ``document`` still being worked on that already hold spans:
    ``{"annotation_set", "annotator", "spans"}`` each. Their marks are not counted in
    review yet, so completing or publishing now would pass them over."""
    sets = (
        document.annotation_sets.filter(kind=SetKind.HUMAN, status=SetStatus.IN_PROGRESS)
        .select_related("annotator")
        .annotate(n_spans=Count("spans"))
        .filter(n_spans__gt=0)
        .order_by("id")
    )
    return [{"annotation_set": s.pk, "annotator": set_name(s), "spans": s.n_spans} for s in sets]


Region = tuple[int, int, str]


def region_fingerprint(spans: Iterable[tuple[int, int, int, str]]) -> str:
    """A digest of the annotator spans ``(set id, start, end, identifier type)`` of a
    region: a "nothing to mark" decision holds only while the region holds exactly these."""
    payload = json.dumps(sorted(list(s) for s in spans))
    return hashlib.sha256(payload.encode()).hexdigest()


def annotator_regions(*, document: Document) -> list[Region]:
    """The review regions (overlap components of the counted annotators' spans), each
    as ``(start, end, fingerprint)`` (:func:`region_fingerprint` of its spans)."""
    human_sets = counted_human_sets(document=document)
    rows = list(
        Span.objects.filter(annotation_set__in=human_sets).values_list(
            "annotation_set_id", "start", "end", "identifier_type"
        )
    )
    return [
        (start, end, region_fingerprint(r for r in rows if start <= r[1] and r[2] <= end))
        for start, end in span_units((r[1], r[2]) for r in rows)
    ]


def decided_empty(gold: AnnotationSet | None) -> set[Region]:
    """The "nothing to mark" decisions kept in the gold set: ``(start, end, fingerprint)``.

    Entries of the older format (bare ``[start, end]`` intervals) say nothing about the
    marks they covered, so they decide nothing."""
    out: set[Region] = set()
    for entry in (gold.parameters or {}).get("resolved_empty", []) if gold else []:
        if isinstance(entry, dict):
            start, end, fingerprint = entry.get("start"), entry.get("end"), entry.get("fingerprint")
            if isinstance(start, int) and isinstance(end, int) and isinstance(fingerprint, str):
                out.add((start, end, fingerprint))
    return out


def gold_unresolved_regions(*, document: Document) -> dict[str, Any]:
    """The regions of the counted annotator sets that the gold set has not decided yet.

    A region (an overlap component of the counted annotators' spans) is resolved when
    a gold span overlaps it, or when the reviewer adopted "nothing to mark here" over
    exactly this region holding exactly these annotator spans (recorded in the gold
    set's ``parameters["resolved_empty"]`` with :func:`region_fingerprint`): a mark
    added, moved or retyped inside it later reopens it. Returns
    ``{"total", "unresolved": [(start, end), ...]}``.
    """
    regions = annotator_regions(document=document)
    gold = document.annotation_sets.filter(kind=SetKind.GOLD).first()
    decided = coverage_mask(
        len(document.text), gold.spans.values_list("start", "end") if gold else []
    )
    empty = decided_empty(gold)
    unresolved = [
        (start, end)
        for start, end, fingerprint in regions
        if not decided[start:end].any() and (start, end, fingerprint) not in empty
    ]
    return {"total": len(regions), "unresolved": unresolved}
