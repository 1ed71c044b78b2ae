"""The ``reid_curve`` job's work: the ensemble re-identification rate against the share of
words masked (seed 004 §6), for the project's documents whose person is known.

Points: no masking; every kind of machine run the documents have (the recognizer's
pre-annotation as mask-all, distant labelling's k-anonymity labels, the masking solver's
risk or reid masks: each the document's current run of that kind); and greedy
de-identification at each K. The job stores ``{"points": [...]}`` as its result, which
``GET /api/projects/<id>/reid/curve/`` serves; nothing else is written.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from annotation.models import AnnotationSet, Project, SetKind
from annotation.services import ProgressCallback
from reid.selectors import ReidContext
from reid.selectors.ranking import NO_MASK, entity_offsets, entity_spans
from reid.services.deidentify import reid_documents_resolve
from sanitizer.reid.base import ReidDocument, ReidModel, Span
from sanitizer.reid.evaluate import CurvePoint, evaluate_masks
from sanitizer.reid.greedy import deidentify


def _stored_masks(document_ids: Sequence[int]) -> dict[str, dict[int, list[Span]]]:
    """``{layer: {document id: masks}}`` of the documents' current machine runs; a layer is
    the run's source and name ("distant", "masking: risk"...)."""
    layers: dict[str, dict[int, list[Span]]] = {}
    sets = AnnotationSet.objects.filter(
        document_id__in=list(document_ids), kind=SetKind.MACHINE
    ).prefetch_related("spans")
    for annotation_set in sets:
        layer = annotation_set.source
        if annotation_set.source_name:
            layer += f": {annotation_set.source_name}"
        masks = [
            (span.start, span.end)
            for span in annotation_set.spans.all()
            if span.identifier_type != NO_MASK
        ]
        layers.setdefault(layer, {})[annotation_set.document_id] = masks
    return layers


def _groups(
    contexts: dict[int, ReidContext],
) -> list[tuple[list[ReidModel], dict[int, ReidDocument]]]:
    """Documents grouped by the ensemble that ranks them (one per knowledge base)."""
    groups: dict[Any, tuple[list[ReidModel], dict[int, ReidDocument]]] = {}
    for pk, context in contexts.items():
        _models, docs = groups.setdefault(context.ensemble.key, (context.ensemble.models, {}))
        docs[pk] = ReidDocument(str(pk), context.document.text, context.target.profile_id)
    return list(groups.values())


def _point(
    groups: Sequence[tuple[list[ReidModel], dict[int, ReidDocument]]],
    masks: dict[int, list[Span]],
    *,
    method: str,
    label: str,
    seconds: float = 0.0,
) -> CurvePoint:
    """One point over every group: document-weighted means of the groups' points."""
    parts = []
    for models, docs in groups:
        by_doc = {doc.doc_id: masks.get(pk, []) for pk, doc in docs.items()}
        parts.append(
            evaluate_masks(models, list(docs.values()), by_doc, method=method, label=label)
        )
    n = sum(p.n_docs for p in parts)
    per_model: dict[str, float] = {}
    for name in {name for p in parts for name in p.per_model}:
        counted = [p for p in parts if name in p.per_model]
        total = sum(p.n_docs for p in counted)
        per_model[name] = sum(p.per_model[name] * p.n_docs for p in counted) / (total or 1)
    return CurvePoint(
        method=method,
        label=label,
        rate=sum(p.rate * p.n_docs for p in parts) / (n or 1),
        share_masked=sum(p.share_masked * p.n_docs for p in parts) / (n or 1),
        info_loss=sum(p.info_loss * p.n_docs for p in parts) / (n or 1),
        per_model=per_model,
        n_docs=n,
        seconds=seconds,
    )


def reid_curve_compute(
    *,
    project: Project,
    k_values: Sequence[int],
    document_ids: Sequence[int] | None = None,
    knowledge_base_id: int | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """``{"points": [CurvePoint as dict, ...], "documents": n, "skipped": {...}}``."""
    contexts, skipped = reid_documents_resolve(
        project=project, document_ids=document_ids, knowledge_base_id=knowledge_base_id
    )
    if not contexts:
        return {"points": [], "documents": 0, "skipped": skipped}
    groups = _groups(contexts)
    layers = _stored_masks(list(contexts))
    total = 1 + len(layers) + len(k_values)
    done = 0

    def step(message: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total, message)

    if progress:
        progress(0, total, f"curve over {len(contexts)} documents")
    points = [_point(groups, {}, method="none", label="no masking")]
    step("no masking")
    for layer in sorted(layers):
        points.append(_point(groups, layers[layer], method=layer, label=layer))
        step(layer)
    entities = {
        pk: entity_offsets(entity_spans(document=context.document))
        for pk, context in contexts.items()
    }
    for k in sorted(set(k_values)):
        started = time.perf_counter()
        masks: dict[int, list[Span]] = {}
        for models, docs in groups:
            for pk, doc in docs.items():
                result = deidentify(doc.text, doc.target, models, k=k, entities=entities[pk])
                masks[pk] = result.masks
        seconds = (time.perf_counter() - started) / len(contexts)
        points.append(_point(groups, masks, method="greedy", label=f"K={k}", seconds=seconds))
        step(f"greedy K={k}")
    return {
        "points": [p.to_dict() for p in points],
        "documents": len(contexts),
        "skipped": skipped,
    }
