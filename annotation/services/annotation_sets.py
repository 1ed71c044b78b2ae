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
from annotation.services.spans import spans_create_logged, spans_merge_duplicates
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


# Machine sources that propose the same kind of suggestion: a new run of one replaces
# the document's current run of any of them (pre-annotation by the built-in recognizer
# or by a trained model are one kind; distant labelling and the masking solver others).
MACHINE_RUN_KINDS: dict[str, str] = {
    SetSource.PREANNOTATION: "recognizer",
    SetSource.MODEL: "recognizer",
    SetSource.DISTANT: "distant",
    SetSource.MASKING: "masking",
}


def machine_sets_supersede(*, document: Document, source: str) -> list[int]:
    """Retire the document's current machine runs of ``source``'s kind (kept as history,
    hidden from every read); returns their ids."""
    kind = MACHINE_RUN_KINDS.get(source, source)
    same_kind = [name for name, group in MACHINE_RUN_KINDS.items() if group == kind] or [source]
    current = AnnotationSet.objects.filter(
        document=document, kind=SetKind.MACHINE, source__in=same_kind
    )
    retired = list(current.values_list("pk", flat=True))
    current.update(superseded_at=timezone.now())
    return retired


def _rejections_carry_over(*, document: Document, retired: list[int], new_set_id: int) -> None:
    """An annotator's rejection of a retired run's suggestion holds for the new run's
    suggestion on the same offsets with the same type, so a re-run brings back nothing
    the annotator already turned down."""
    human_sets = AnnotationSet.objects.select_for_update().filter(
        document=document, kind=SetKind.HUMAN, parameters__has_key="rejected_suggestions"
    )
    for annotation_set in human_sets:
        rejected = set(annotation_set.parameters["rejected_suggestions"])
        keys = set(
            Span.objects.filter(pk__in=rejected, annotation_set_id__in=retired).values_list(
                "start", "end", "entity_type"
            )
        )
        if not keys:
            continue
        new_spans = Span.objects.filter(annotation_set_id=new_set_id).values_list(
            "pk", "start", "end", "entity_type"
        )
        carried = {pk for pk, *key in new_spans if tuple(key) in keys}
        annotation_set.parameters = {
            **annotation_set.parameters,
            "rejected_suggestions": sorted(rejected | carried),
        }
        annotation_set.save(update_fields=["parameters", "updated_at"])


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
    """Store one machine run's spans; every span is traceable to ``source_version``.

    The run replaces the document's previous run of the same kind (see
    :func:`machine_sets_supersede`), so the editor shows one layer per kind. The
    document row is locked first: two runs of one kind finishing at once would
    otherwise each supersede only what was there before both, and both stay current."""
    Document.objects.select_for_update().filter(pk=document.pk).first()
    retired = machine_sets_supersede(document=document, source=source)
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
    # Labellers may propose one stretch twice (two components, two rules): one span,
    # with the stronger decision, as the offsets constraint demands.
    spans_create_logged(spans_merge_duplicates(rows), actor(created_by))
    if retired:
        _rejections_carry_over(document=document, retired=retired, new_set_id=annotation_set.pk)
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
