"""Erasing one document: its text, every annotation set of it (machine runs, human sets,
gold), their spans and audit events, its assignments, risk assessments and
re-identification target; the project's models that may have learnt from it."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from annotation.models import AnnotationSet, Assignment, Document, Span, SpanEvent
from erasure.models import ErasureKind, ErasureRecord
from erasure.services.base import (
    active_jobs_cancel,
    models_affected,
    models_apply,
    models_without_other_documents,
    reason_clean,
    record_create,
)
from reid.models import ReidTarget
from risk.models import RiskAssessment


def document_counts(*, documents: Any) -> dict[str, int]:
    """What erasing ``documents`` (a queryset) removes, by kind of row."""
    return {
        "documents": documents.count(),
        # ``history``: superseded machine runs too.
        "annotation_sets": AnnotationSet.history.filter(document__in=documents).count(),
        "spans": Span.objects.filter(annotation_set__document__in=documents).count(),
        "span_events": SpanEvent.objects.filter(annotation_set__document__in=documents).count(),
        "assignments": Assignment.objects.filter(document__in=documents).count(),
        "risk_assessments": RiskAssessment.objects.filter(document__in=documents).count(),
        "reid_targets": ReidTarget.objects.filter(document__in=documents).count(),
    }


@transaction.atomic
def document_erase(*, document: Document, actor: Any, reason: str) -> ErasureRecord:
    """Delete the document and everything about it; leave an audit record.

    The project's queued and running jobs are cancelled first (one may be reading the
    document). A model whose training read the document (by the ids it recorded), or
    that recorded none and was registered after the document was added, may have
    learnt from it: deleted with its files when it read no other document (or, without
    recorded ids, none other existed then), otherwise marked as trained on erased data
    and deactivated. Files go after the commit.
    """
    reason = reason_clean(reason)
    document = Document.objects.select_for_update().select_related("project").get(pk=document.pk)
    project = document.project
    jobs_cancelled = active_jobs_cancel(project=project, actor=actor)
    erased = Document.objects.filter(pk=document.pk)
    only, partly = models_without_other_documents(
        models=models_affected(
            project=project, document_ids=[document.pk], since=document.created_at
        ),
        project=project,
        erased=erased,
    )
    removed = document_counts(documents=erased)
    document_id = document.pk
    document.delete()
    models_deleted, models_marked, folders = models_apply(delete=only, mark=partly)
    return record_create(
        kind=ErasureKind.DOCUMENT,
        object_id=document_id,
        project_id=project.pk,
        actor=actor,
        reason=reason,
        removed=removed,
        models_deleted=models_deleted,
        models_marked=models_marked,
        jobs_cancelled=jobs_cancelled,
        files=folders,
    )
