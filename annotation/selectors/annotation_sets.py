"""Reads: annotation sets, spans and their audit trail, and the editor's workspace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet

from annotation.models import AnnotationSet, Document, SetKind, Span, SpanEvent
from annotation.selectors.access import (
    annotation_set_editable_in_role,
    annotation_sets_for_user,
    project_role,
)
from annotation.selectors.agreement import set_name
from common.errors import DomainError

# Span fields the editor reads (the text comes from the document).
_WORKSPACE_SPAN_FIELDS = (
    "id",
    "annotation_set_id",
    "start",
    "end",
    "entity_type",
    "identifier_type",
    "confidential_status",
    "entity_id",
    "mention_id",
    "confidence",
    "note",
    "attrs",
    "version",
)


def annotation_set_get(*, annotation_set_id: int) -> AnnotationSet | None:
    return (
        AnnotationSet.objects.select_related("document__project", "annotator")
        .filter(pk=annotation_set_id)
        .first()
    )


def gold_set(*, document: Document) -> AnnotationSet:
    """The document's gold set (which must exist)."""
    return document.annotation_sets.get(kind=SetKind.GOLD)


def span_get(*, span_id: int) -> Span | None:
    return Span.objects.select_related("annotation_set").filter(pk=span_id).first()


def span_history_set_id(*, span_key: int) -> int | None:
    """The set a span belongs (or, once deleted, belonged) to."""
    return (
        Span.objects.filter(pk=span_key).values_list("annotation_set_id", flat=True).first()
        or SpanEvent.objects.filter(span_key=span_key)
        .values_list("annotation_set_id", flat=True)
        .first()
    )


def spans_of_document(*, document: Document, span_ids: Sequence[int]) -> list[Span]:
    """The spans ``span_ids`` of ``document`` (any of its sets); DomainError when some
    are not the document's."""
    spans = list(
        Span.objects.select_related("annotation_set").filter(
            pk__in=span_ids, annotation_set__document=document
        )
    )
    if len(spans) != len(set(span_ids)):
        raise DomainError("some spans are not in this document")
    return spans


def span_events(
    *, annotation_set: AnnotationSet, span_key: int | None = None
) -> QuerySet[SpanEvent]:
    """The audit trail of a set (or of one span in it, deleted or not), oldest first."""
    qs = SpanEvent.objects.filter(annotation_set=annotation_set).select_related("user")
    if span_key is not None:
        qs = qs.filter(span_key=span_key)
    return qs.order_by("at", "id")


def document_workspace(*, user: Any, document: Document) -> dict[str, Any]:
    """Everything the editor shows of a document: the text, the user's role and every
    set the user may see with its spans, in a fixed number of queries."""
    role = project_role(user=user, project=document.project_id)
    sets = list(annotation_sets_for_user(user=user, document=document))
    spans: dict[int, list[dict[str, Any]]] = {s.pk: [] for s in sets}
    rows = Span.objects.filter(annotation_set_id__in=spans).order_by("start", "end", "id")
    for row in rows.values(*_WORKSPACE_SPAN_FIELDS):
        spans[row.pop("annotation_set_id")].append(row)
    return {
        "id": document.pk,
        "external_id": document.external_id,
        "project": document.project_id,
        "project_name": document.project.name,
        "role": role or "",
        "text": document.text,
        "target_person": document.target_person,
        "status": document.status,
        "sets": [
            {
                "id": annotation_set.pk,
                "kind": annotation_set.kind,
                "source": annotation_set.source,
                "source_name": annotation_set.source_name,
                "source_version": annotation_set.source_version,
                "name": set_name(annotation_set),
                "annotator": (
                    annotation_set.annotator.get_username() if annotation_set.annotator else None
                ),
                "status": annotation_set.status,
                "editable": annotation_set_editable_in_role(
                    user=user, annotation_set=annotation_set, role=role
                ),
                "mine": annotation_set.kind == SetKind.HUMAN
                and annotation_set.annotator_id == user.pk,
                "published_at": annotation_set.published_at,
                "rejected_suggestions": (annotation_set.parameters or {}).get(
                    "rejected_suggestions", []
                ),
                "spans": spans[annotation_set.pk],
            }
            for annotation_set in sets
        ],
    }
