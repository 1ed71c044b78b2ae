"""Writes of the review workflow: adjudicating into the gold set, completing a
document everyone agrees on, and an annotator's rejection of machine suggestions.

Span changes go through ``annotation.services`` (span_create / span_delete), so the
gold set keeps the same audit trail as every other set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from annotation import services
from annotation.agreement_selectors import document_disagreements
from annotation.models import AnnotationSet, Document, SetKind, SetStatus, Span
from annotation.services import UserLike
from common.errors import DomainError

# Fields a gold copy takes over from the adopted span.
_COPIED = ("entity_type", "identifier_type", "confidential_status", "entity_id", "note")


def _copy_into(*, gold: AnnotationSet, span: Span, user: UserLike) -> Span:
    attrs = dict(span.attrs) if isinstance(span.attrs, dict) else {}
    attrs["adopted_from"] = {"span": span.pk, "annotation_set": span.annotation_set_id}
    return services.span_create(
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
    gold = services.gold_set_for_document(document=document, user=user)
    for old in gold.spans.filter(start__lt=end, end__gt=start):
        services.span_delete(span=old, user=user)
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
    gold = services.gold_set_for_document(document=document, user=user)
    for old in gold.spans.all():
        services.span_delete(span=old, user=user)
    for span in human_sets[0].spans.select_related("annotation_set").order_by("start", "end"):
        _copy_into(gold=gold, span=span, user=user)
    if publish:
        gold = services.gold_publish(document=document, user=user)
    return gold


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
