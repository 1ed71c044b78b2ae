"""Writes of spans; every change is recorded in the audit trail (``SpanEvent``)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F

from annotation.models import AnnotationSet, SetKind, SetStatus, Span, SpanAction, SpanEvent
from annotation.services.base import UserLike, actor
from common.errors import DomainError, StaleVersionError
from sanitizer.types import IDENTIFIER_TYPES

SPAN_EDITABLE_FIELDS = (
    "start",
    "end",
    "entity_type",
    "identifier_type",
    "confidential_status",
    "entity_id",
    "note",
    "confidence",
)
BULK_BATCH = 2000
# TAB mention ids merged into a span because they had its offsets (see spans_merge_duplicates).
DUPLICATE_MENTIONS_KEY = "duplicate_mention_ids"


def decision_rank(identifier_type: str) -> int:
    """How strongly a decision masks: DIRECT > QUASI > NO_MASK (IDENTIFIER_TYPES order)."""
    if identifier_type not in IDENTIFIER_TYPES:
        return 0
    return len(IDENTIFIER_TYPES) - IDENTIFIER_TYPES.index(identifier_type)


def spans_merge_duplicates(rows: list[Span]) -> list[Span]:
    """One row per offsets, as the ``span_unique_offsets`` constraint demands.

    Of rows sharing ``(start, end)`` the strongest decision wins, ties going to the
    first row (a file has no "latest"; migration 0004, on edited rows, keeps the latest),
    so merging never lowers a decision. The survivor takes the first row's place in the
    order; the TAB mention ids of the
    rows it absorbed are kept in its attrs (``DUPLICATE_MENTIONS_KEY``), so an export
    still names every mention of the file: one stretch of text annotated twice by
    one annotator is one masking decision.
    """
    kept: dict[tuple[int, int], Span] = {}
    absorbed: dict[tuple[int, int], list[Span]] = {}
    for row in rows:
        offsets = (row.start, row.end)
        current = kept.get(offsets)
        if current is None:
            kept[offsets] = row
            continue
        if decision_rank(row.identifier_type) > decision_rank(current.identifier_type):
            kept[offsets], row = row, current
        absorbed.setdefault(offsets, []).append(row)
    for offsets, losers in absorbed.items():
        winner = kept[offsets]
        ids = [
            mention
            for loser in losers
            for mention in [loser.mention_id, *(loser.attrs or {}).get(DUPLICATE_MENTIONS_KEY, [])]
            if mention
        ]
        if ids:
            attrs = dict(winner.attrs or {})
            attrs[DUPLICATE_MENTIONS_KEY] = [*attrs.get(DUPLICATE_MENTIONS_KEY, []), *ids]
            winner.attrs = attrs
    return list(kept.values())


def span_snapshot(span: Span) -> dict[str, Any]:
    return {
        "id": span.pk,
        "start": span.start,
        "end": span.end,
        "text": span.text,
        "entity_type": span.entity_type,
        "identifier_type": span.identifier_type,
        "confidential_status": span.confidential_status,
        "entity_id": span.entity_id,
        "confidence": span.confidence,
        "note": span.note,
        "version": span.version,
    }


def spans_create_logged(spans: list[Span], user: Any) -> None:
    """Insert many spans and their CREATE audit events (imports and machine runs)."""
    Span.objects.bulk_create(spans, batch_size=BULK_BATCH)
    SpanEvent.objects.bulk_create(
        (
            SpanEvent(
                span=span,
                span_key=span.pk,
                annotation_set_id=span.annotation_set_id,
                action=SpanAction.CREATE,
                user=user,
                after=span_snapshot(span),
            )
            for span in spans
        ),
        batch_size=BULK_BATCH,
    )


def _log(span: Span, action: str, user: UserLike, before: Any, after: Any) -> None:
    SpanEvent.objects.create(
        span=span if action != SpanAction.DELETE else None,
        span_key=span.pk,
        annotation_set_id=span.annotation_set_id,
        action=action,
        user=actor(user),
        before=before,
        after=after,
    )


def _ensure_editable(annotation_set: AnnotationSet) -> None:
    if annotation_set.kind == SetKind.MACHINE:
        raise DomainError("machine runs are read-only; copy a span into your own set instead")
    if annotation_set.status == SetStatus.REVIEWED and annotation_set.kind == SetKind.HUMAN:
        raise DomainError("the set has been reviewed and is closed")


@transaction.atomic
def span_create(
    *,
    annotation_set: AnnotationSet,
    user: UserLike,
    start: int,
    end: int,
    entity_type: str,
    identifier_type: str = "QUASI",
    confidential_status: str = "NOT_CONFIDENTIAL",
    entity_id: str = "",
    note: str = "",
    confidence: float | None = None,
    attrs: dict[str, Any] | None = None,
) -> Span:
    _ensure_editable(annotation_set)
    # One span per offsets and set: a second create (say, a suggestion accepted twice,
    # or in two tabs) is a conflict carrying the span that is there, which the editor
    # adopts and then updates; silently updating it here could overwrite a decision.
    _refuse_taken_offsets(annotation_set, start, end)
    text = annotation_set.document.text
    span = Span(
        annotation_set=annotation_set,
        start=start,
        end=end,
        text=text[start:end] if 0 <= start < end <= len(text) else "",
        entity_type=entity_type,
        identifier_type=identifier_type,
        confidential_status=confidential_status,
        entity_id=entity_id,
        note=note,
        confidence=confidence,
        attrs=attrs or {},
    )
    try:
        span.full_clean()
        # A savepoint, so the transaction is still usable to read the winner after a
        # simultaneous create at the same offsets trips the unique constraint.
        with transaction.atomic():
            span.save()
    except (ValidationError, IntegrityError):
        _refuse_taken_offsets(annotation_set, start, end)
        raise
    _log(span, SpanAction.CREATE, user, None, span_snapshot(span))
    return span


def _refuse_taken_offsets(annotation_set: AnnotationSet, start: int, end: int) -> None:
    """Raise :class:`StaleVersionError` with the span the set already has at these offsets."""
    existing = (
        Span.objects.select_for_update()
        .filter(annotation_set=annotation_set, start=start, end=end)
        .first()
    )
    if existing is not None:
        raise StaleVersionError(
            span_snapshot(existing), "a span with these offsets already exists in the set"
        )


@transaction.atomic
def span_update(*, span: Span, user: UserLike, expected_version: int, **changes: Any) -> Span:
    """Apply ``changes`` if nobody wrote the span since ``expected_version`` was read.

    Raises :class:`StaleVersionError` (with the current state) otherwise, so the
    caller can show both versions and nothing is silently overwritten.
    """
    unknown = set(changes) - set(SPAN_EDITABLE_FIELDS)
    if unknown:
        raise DomainError(f"cannot change {', '.join(sorted(unknown))}")
    locked = (
        Span.objects.select_for_update()
        .select_related("annotation_set__document")
        .filter(pk=span.pk)
        .first()
    )
    if locked is None:
        # Deleted since it was read (e.g. replaced by an adjudication): a conflict too.
        raise StaleVersionError(None)
    if locked.version != expected_version:
        raise StaleVersionError(span_snapshot(locked))
    _ensure_editable(locked.annotation_set)
    before = span_snapshot(locked)
    for key, value in changes.items():
        setattr(locked, key, value)
    if "start" in changes or "end" in changes:
        locked.text = locked.annotation_set.document.text[locked.start : locked.end]
        clash = (
            Span.objects.filter(
                annotation_set_id=locked.annotation_set_id, start=locked.start, end=locked.end
            )
            .exclude(pk=locked.pk)
            .exists()
        )
        if clash:
            raise DomainError("another span of the set already has these offsets")
    locked.version = expected_version + 1
    locked.full_clean()
    locked.save()
    _log(locked, SpanAction.UPDATE, user, before, span_snapshot(locked))
    return locked


@transaction.atomic
def span_delete(*, span: Span, user: UserLike, expected_version: int | None = None) -> None:
    locked = (
        Span.objects.select_for_update().select_related("annotation_set").filter(pk=span.pk).first()
    )
    if locked is None:
        raise StaleVersionError(None)
    if expected_version is not None and locked.version != expected_version:
        raise StaleVersionError(span_snapshot(locked))
    _ensure_editable(locked.annotation_set)
    _log(locked, SpanAction.DELETE, user, span_snapshot(locked), None)
    locked.delete()


@transaction.atomic
def spans_set_decision_for_entity(
    *, annotation_set: AnnotationSet, entity_id: str, identifier_type: str, user: UserLike
) -> int:
    """Apply one decision to every mention of a co-referent entity; returns the count."""
    _ensure_editable(annotation_set)
    count = 0
    for span in annotation_set.spans.select_for_update().filter(entity_id=entity_id):
        if span.identifier_type == identifier_type:
            continue
        before = span_snapshot(span)
        span.identifier_type = identifier_type
        span.version = F("version") + 1
        span.save(update_fields=["identifier_type", "version", "updated_at"])
        span.refresh_from_db()
        _log(span, SpanAction.UPDATE, user, before, span_snapshot(span))
        count += 1
    return count
