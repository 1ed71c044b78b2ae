"""Writes of annotation sets: an annotator's own set, machine runs, submission."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.models import (
    AnnotationSet,
    Document,
    DocumentStatus,
    SetKind,
    SetSource,
    SetStatus,
    Span,
)
from annotation.services.base import UserLike, actor
from annotation.services.spans import spans_create_logged
from common.errors import DomainError
from sanitizer.types import EntitySpan


@transaction.atomic
def annotation_set_for_annotator(*, document: Document, user: Any) -> AnnotationSet:
    """The annotator's own set for ``document``, created on first use."""
    annotation_set, created = AnnotationSet.objects.get_or_create(
        document=document,
        kind=SetKind.HUMAN,
        annotator=user,
        defaults={"source": SetSource.MANUAL, "created_by": user},
    )
    if created and document.status == DocumentStatus.NEW:
        Document.objects.filter(pk=document.pk).update(status=DocumentStatus.IN_PROGRESS)
    return annotation_set


@transaction.atomic
def machine_set_create(
    *,
    document: Document,
    source: str,
    source_name: str,
    source_version: str,
    spans: Iterable[EntitySpan],
    parameters: dict[str, Any] | None = None,
    model_version: Any = None,
    job: Any = None,
    created_by: UserLike = None,
) -> AnnotationSet:
    """Store one machine run's spans; every span is traceable to ``source_version``."""
    annotation_set = AnnotationSet(
        document=document,
        kind=SetKind.MACHINE,
        source=source,
        source_name=source_name,
        source_version=source_version,
        parameters=parameters or {},
        model_version=model_version,
        job=job,
        status=SetStatus.SUBMITTED,
        created_by=actor(created_by),
        submitted_at=timezone.now(),
    )
    annotation_set.full_clean()
    annotation_set.save()
    text = document.text
    rows = []
    for span in spans:
        if span.end > len(text) or text[span.start : span.end] != span.text:
            raise DomainError(f"machine span {span.start}..{span.end} does not match the text")
        rows.append(
            Span(
                annotation_set=annotation_set,
                start=span.start,
                end=span.end,
                text=span.text,
                entity_type=span.label,
                identifier_type=span.identifier_type or "QUASI",
                entity_id=span.entity_id or "",
                confidence=span.confidence,
                attrs={**span.attrs, "source": span.source} if span.source else dict(span.attrs),
            )
        )
    spans_create_logged(rows, actor(created_by))
    return annotation_set


@transaction.atomic
def annotation_set_submit(*, annotation_set: AnnotationSet, user: UserLike) -> AnnotationSet:
    annotation_set = AnnotationSet.objects.select_for_update().get(pk=annotation_set.pk)
    if annotation_set.status != SetStatus.IN_PROGRESS:
        raise DomainError(f"the set is already {annotation_set.status}")
    annotation_set.status = SetStatus.SUBMITTED
    annotation_set.submitted_at = timezone.now()
    annotation_set.save(update_fields=["status", "submitted_at", "updated_at"])
    # Lock the document so two annotators submitting at once both see the other's set.
    document = Document.objects.select_for_update().get(pk=annotation_set.document_id)
    if document.status in (DocumentStatus.NEW, DocumentStatus.IN_PROGRESS):
        pending = document.annotation_sets.filter(kind=SetKind.HUMAN, status=SetStatus.IN_PROGRESS)
        if not pending.exists():
            Document.objects.filter(pk=document.pk).update(status=DocumentStatus.ANNOTATED)
    return annotation_set


@transaction.atomic
def suggestions_set_rejected(
    *, annotation_set: AnnotationSet, span_ids: Sequence[int], rejected: bool, user: Any
) -> list[int]:
    """Record (or withdraw) an annotator's rejection of machine suggestions.

    Kept in the annotator's own set (``parameters["rejected_suggestions"]``) so the
    editor can skip reviewed suggestions on the next visit; returns the full list.
    """
    annotation_set = AnnotationSet.objects.select_for_update().get(pk=annotation_set.pk)
    if annotation_set.kind != SetKind.HUMAN:
        raise DomainError("suggestions are rejected in an annotator's own set")
    if annotation_set.status == SetStatus.REVIEWED:
        raise DomainError("the set has been reviewed and is closed")
    machine_ids = set(
        Span.objects.filter(
            pk__in=span_ids,
            annotation_set__document_id=annotation_set.document_id,
            annotation_set__kind=SetKind.MACHINE,
        ).values_list("pk", flat=True)
    )
    unknown = sorted(set(span_ids) - machine_ids)
    if unknown:
        raise DomainError(f"not machine suggestions of this document: {unknown}")
    parameters = dict(annotation_set.parameters or {})
    current = set(parameters.get("rejected_suggestions", []))
    current = current | machine_ids if rejected else current - machine_ids
    parameters["rejected_suggestions"] = sorted(current)
    annotation_set.parameters = parameters
    annotation_set.full_clean()
    annotation_set.save(update_fields=["parameters", "updated_at"])
    return parameters["rejected_suggestions"]
