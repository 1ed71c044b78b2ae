"""Writes of the review workflow: the gold set, adjudicating into it, publishing it,
and completing a document everyone agrees on in one action.

Span changes go through ``annotation.services.spans`` (span_create / span_delete), so
the gold set keeps the same audit trail as every other set.
"""

from __future__ import annotations

from collections.abc import Sequence

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
from annotation.selectors.agreement import document_disagreements
from annotation.services.base import UserLike, actor
from annotation.services.spans import span_create, span_delete
from common.errors import DomainError

# Fields a gold copy takes over from the adopted span.
_COPIED = ("entity_type", "identifier_type", "confidential_status", "entity_id", "note")


@transaction.atomic
def gold_set_for_document(*, document: Document, user: UserLike) -> AnnotationSet:
    annotation_set, _ = AnnotationSet.objects.get_or_create(
        document=document,
        kind=SetKind.GOLD,
        defaults={"source": SetSource.ADJUDICATION, "created_by": actor(user)},
    )
    return annotation_set


@transaction.atomic
def gold_publish(*, document: Document, user: UserLike) -> AnnotationSet:
    """Publish the adjudicated set: from now on annotators of the project may see all sets."""
    gold = (
        AnnotationSet.objects.select_for_update()
        .filter(document=document, kind=SetKind.GOLD)
        .first()
    )
    if gold is None:
        raise DomainError("the document has no gold set to publish")
    now = timezone.now()
    gold.status = SetStatus.REVIEWED
    gold.published_at = now
    gold.reviewed_at = now
    gold.reviewed_by = actor(user)
    gold.save(update_fields=["status", "published_at", "reviewed_at", "reviewed_by", "updated_at"])
    document.annotation_sets.filter(kind=SetKind.HUMAN).update(
        status=SetStatus.REVIEWED, reviewed_at=now, reviewed_by=actor(user)
    )
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.ADJUDICATED)
    return gold


def _copy_into(*, gold: AnnotationSet, span: Span, user: UserLike) -> Span:
    attrs = dict(span.attrs) if isinstance(span.attrs, dict) else {}
    attrs["adopted_from"] = {"span": span.pk, "annotation_set": span.annotation_set_id}
    return span_create(
        annotation_set=gold,
        user=user,
        start=span.start,
        end=span.end,
        confidence=span.confidence,
        attrs=attrs,
        **{name: getattr(span, name) for name in _COPIED},
    )


@transaction.atomic
def gold_adopt_spans(
    *,
    document: Document,
    spans: Sequence[Span],
    user: UserLike,
    start: int | None = None,
    end: int | None = None,
) -> list[Span]:
    """Make one version of a disputed region the gold one.

    Gold spans overlapping ``[start, end)`` (by default the extent of ``spans``) are
    deleted, then ``spans`` (one set's version of the region, possibly empty = "nothing
    to mark here") are copied into the gold set, which is created on first use.
    """
    sources = {span.annotation_set_id for span in spans}
    if len(sources) > 1:
        raise DomainError("adopt the spans of one set at a time")
    for span in spans:
        if span.annotation_set.document_id != document.pk:
            raise DomainError(f"span {span.pk} belongs to another document")
        if span.annotation_set.kind == SetKind.GOLD:
            raise DomainError("the span is already in the gold set")
    if start is None or end is None:
        if not spans:
            raise DomainError("give the region to clear, or spans to adopt")
        start = min(span.start for span in spans)
        end = max(span.end for span in spans)
    if not 0 <= start < end <= len(document.text):
        raise DomainError(f"invalid region {start}..{end}")
    # One adjudication of a document at a time: two reviewers adopting overlapping
    # regions would otherwise both delete and both insert.
    Document.objects.select_for_update().filter(pk=document.pk).first()
    gold = gold_set_for_document(document=document, user=user)
    for old in gold.spans.filter(start__lt=end, end__gt=start):
        span_delete(span=old, user=user)
    return [_copy_into(gold=gold, span=span, user=user) for span in spans]


@transaction.atomic
def gold_complete_unanimous(
    *, document: Document, user: UserLike, publish: bool = True
) -> AnnotationSet:
    """Complete a document on which every annotator agrees, in one action.

    Every human set must be submitted and all must hold the same spans (offsets,
    entity type, identifier type); the gold set then becomes a copy of them (replacing
    whatever it held) and is published unless ``publish`` is false.
    """
    document = Document.objects.select_for_update().get(pk=document.pk)
    human_sets = list(
        document.annotation_sets.filter(kind=SetKind.HUMAN)
        .select_related("annotator")
        .order_by("id")
    )
    if not human_sets:
        raise DomainError("the document has no annotations to complete")
    pending = [
        s.annotator.get_username() if s.annotator else str(s.annotator_id)
        for s in human_sets
        if s.status == SetStatus.IN_PROGRESS
    ]
    if pending:
        raise DomainError(f"not submitted yet: {', '.join(sorted(pending))}")
    disagreements = document_disagreements(document=document, human_sets=human_sets)
    if disagreements:
        raise DomainError(
            f"the annotators disagree on {len(disagreements)} region(s); adjudicate them first"
        )
    gold = gold_set_for_document(document=document, user=user)
    for old in gold.spans.all():
        span_delete(span=old, user=user)
    for span in human_sets[0].spans.select_related("annotation_set").order_by("start", "end"):
        _copy_into(gold=gold, span=span, user=user)
    if publish:
        gold = gold_publish(document=document, user=user)
    return gold
