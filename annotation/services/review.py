"""Writes of the review workflow: the gold set, adjudicating into it (one region, or
every region from one set at once), publishing it, and completing a document everyone
agrees on in one action.

Span changes go through ``annotation.services.spans``, so the gold set keeps the same
audit trail as every other set. Only annotator sets that were handed in count
(``annotation.selectors.agreement``).

Publishing while regions are undecided, or while an annotator still works on the
document with marks not handed in, needs ``force``: the API answers 400 with the number
of undecided regions and those annotators otherwise, and the review page asks the
reviewer to confirm before it sends ``force``. Publishing closes the submitted sets only;
a set still in progress stays open. A region is decided when gold holds a span there or
the reviewer adopted "nothing to mark" over exactly that region with exactly those
annotator spans (kept in ``parameters["resolved_empty"]``, see
``annotation.selectors.agreement.gold_unresolved_regions``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import (
    AnnotationSet,
    Document,
    DocumentStatus,
    SetKind,
    SetSource,
    SetStatus,
    Span,
    SpanAction,
    SpanEvent,
)
from annotation.selectors.agreement import (
    annotator_regions,
    annotators_in_progress,
    counted_human_sets,
    decided_empty,
    document_disagreements,
    gold_unresolved_regions,
)
from annotation.services.base import UserLike, actor
from annotation.services.spans import span_create, span_delete, span_snapshot, spans_create_logged
from common.errors import DomainError, StaleVersionError


def _annotators_named(pending: Sequence[dict[str, Any]]) -> str:
    return ", ".join(f"{p['annotator']} ({p['spans']} span(s))" for p in pending)


class UnresolvedRegionsError(DomainError):
    """Publishing would leave regions undecided or pass over an annotator's marks not
    handed in yet; carries how many regions, and those annotators."""

    def __init__(
        self, unresolved: int, total: int, in_progress: Sequence[dict[str, Any]] = ()
    ) -> None:
        self.unresolved = unresolved
        self.total = total
        self.in_progress = list(in_progress)
        reasons = []
        if unresolved:
            reasons.append(f"{unresolved} of {total} region(s) are not decided in gold yet")
        if self.in_progress:
            reasons.append(
                "still annotating, marks not submitted: " + _annotators_named(self.in_progress)
            )
        super().__init__("; ".join(reasons) + "; publish with force to publish anyway")


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
def gold_publish(*, document: Document, user: UserLike, force: bool = False) -> AnnotationSet:
    """Publish the adjudicated set: from now on annotators of the project may see all sets.

    Refuses (:class:`UnresolvedRegionsError`) while regions are undecided or an
    annotator's set in progress holds spans, unless ``force``. Closes (marks reviewed)
    the submitted annotator sets only: a set still in progress stays open.
    """
    # The same lock as adoption, so nothing is adopted into gold while it is published.
    Document.objects.select_for_update().filter(pk=document.pk).first()
    gold = (
        AnnotationSet.objects.select_for_update()
        .filter(document=document, kind=SetKind.GOLD)
        .first()
    )
    if gold is None:
        raise DomainError("the document has no gold set to publish")
    if not force:
        regions = gold_unresolved_regions(document=document)
        pending = annotators_in_progress(document=document)
        if regions["unresolved"] or pending:
            raise UnresolvedRegionsError(len(regions["unresolved"]), regions["total"], pending)
    now = timezone.now()
    gold.status = SetStatus.REVIEWED
    gold.published_at = now
    gold.reviewed_at = now
    gold.reviewed_by = actor(user)
    gold.save(update_fields=["status", "published_at", "reviewed_at", "reviewed_by", "updated_at"])
    document.annotation_sets.filter(kind=SetKind.HUMAN, status=SetStatus.SUBMITTED).update(
        status=SetStatus.REVIEWED, reviewed_at=now, reviewed_by=actor(user)
    )
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.ADJUDICATED)
    return gold


def _copied_fields(span: Span) -> dict[str, Any]:
    attrs = dict(span.attrs) if isinstance(span.attrs, dict) else {}
    attrs["adopted_from"] = {"span": span.pk, "annotation_set": span.annotation_set_id}
    return {
        "start": span.start,
        "end": span.end,
        "confidence": span.confidence,
        "attrs": attrs,
        **{name: getattr(span, name) for name in _COPIED},
    }


def _copy_into(*, gold: AnnotationSet, span: Span, user: UserLike) -> Span:
    return span_create(annotation_set=gold, user=user, **_copied_fields(span))


def _record_empty(
    gold: AnnotationSet, document: Document, cleared: Sequence[tuple[int, int]]
) -> None:
    """Remember that the review regions lying within ``cleared`` hold nothing to mark.

    Each decision is the exact region with the fingerprint of the annotator spans it
    holds now, so a mark added or changed there later reopens it; regions are never
    merged. A newer decision over the same extent replaces the older one."""
    kept = {(start, end): fingerprint for start, end, fingerprint in decided_empty(gold)}
    for start, end, fingerprint in annotator_regions(document=document):
        if any(a <= start and end <= b for a, b in cleared):
            kept[(start, end)] = fingerprint
    gold.parameters = {
        **(gold.parameters or {}),
        "resolved_empty": [
            {"start": start, "end": end, "fingerprint": fingerprint}
            for (start, end), fingerprint in sorted(kept.items())
        ],
    }
    gold.save(update_fields=["parameters", "updated_at"])


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
    if not spans:
        _record_empty(gold, document, [(start, end)])
    return [_copy_into(gold=gold, span=span, user=user) for span in spans]


@transaction.atomic
def gold_adopt_set(*, document: Document, source: AnnotationSet, user: UserLike) -> AnnotationSet:
    """Adopt one set's version of every region at once: gold becomes a copy of
    ``source`` (an annotator's set or a machine run), and the regions where ``source``
    marks nothing are recorded as decided ("nothing to mark")."""
    if source.document_id != document.pk:
        raise DomainError("the set belongs to another document")
    if source.kind == SetKind.GOLD:
        raise DomainError("the set is already the gold set")
    Document.objects.select_for_update().filter(pk=document.pk).first()
    gold = gold_set_for_document(document=document, user=user)
    who = actor(user)
    # One query each way, however long the document: a bulk delete with its audit rows,
    # then a bulk insert with its own.
    old = list(gold.spans.all())
    SpanEvent.objects.bulk_create(
        SpanEvent(
            span=None,
            span_key=span.pk,
            annotation_set=gold,
            action=SpanAction.DELETE,
            user=who,
            before=span_snapshot(span),
        )
        for span in old
    )
    gold.spans.all().delete()
    copies = []
    for span in source.spans.order_by("start", "end"):
        copies.append(Span(annotation_set=gold, text=span.text, **_copied_fields(span)))
    try:
        # A gold span created meanwhile (another tab's editor) at one of these offsets
        # is a conflict to show, not a server error.
        with transaction.atomic():
            spans_create_logged(copies, who)
    except IntegrityError:
        offsets = {(c.start, c.end) for c in copies}
        clash = next((s for s in gold.spans.order_by("id") if (s.start, s.end) in offsets), None)
        if clash is None:
            raise
        raise StaleVersionError(
            span_snapshot(clash), "a gold span was created at these offsets meanwhile"
        ) from None
    _record_empty(gold, document, gold_unresolved_regions(document=document)["unresolved"])
    return gold


@transaction.atomic
def gold_complete_unanimous(
    *, document: Document, user: UserLike, publish: bool = True
) -> AnnotationSet:
    """Complete a document on which every annotator agrees, in one action.

    The submitted annotator sets must all hold the same spans (offsets, entity type,
    identifier type); the gold set then becomes a copy of them (replacing whatever it
    held) and is published unless ``publish`` is false. Refused while an annotator's
    set in progress holds spans: their marks would be passed over.
    """
    document = Document.objects.select_for_update().get(pk=document.pk)
    human_sets = counted_human_sets(document=document)
    if not human_sets:
        raise DomainError("no annotator has submitted this document yet")
    pending = annotators_in_progress(document=document)
    if pending:
        raise DomainError(
            "annotators are still working on this document with marks not submitted: "
            f"{_annotators_named(pending)}; wait for them, or adjudicate and publish with force"
        )
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
        gold = gold_publish(document=document, user=user, force=True)
    return gold
