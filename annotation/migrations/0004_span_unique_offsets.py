"""No two spans of one annotation set share the same offsets.

Existing duplicates are merged first so the constraint can be added to any database:
of each group of spans with equal ``(annotation_set, start, end)`` the one with the
strongest decision (DIRECT > QUASI > NO_MASK) survives, ties going to the latest
(``updated_at``, then ``id``). Merging never lowers a decision and never fails.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

# Strongest first, as in sanitizer.types.IDENTIFIER_TYPES; copied because a migration
# must keep meaning what it meant when it was written.
_DECISIONS = ("DIRECT", "QUASI", "NO_MASK")


def _strength(span: Any) -> tuple[int, Any, int]:
    decision = span.identifier_type
    rank = len(_DECISIONS) - _DECISIONS.index(decision) if decision in _DECISIONS else 0
    return (rank, span.updated_at, span.id)


def _snapshot(span: Any) -> dict[str, Any]:
    fields = ("start", "end", "text", "entity_type", "identifier_type", "confidential_status")
    return {
        "id": span.id,
        **{name: getattr(span, name) for name in fields},
        "entity_id": span.entity_id,
        "confidence": span.confidence,
        "note": span.note,
        "version": span.version,
    }


def merge_duplicate_spans(span_model: Any, event_model: Any) -> int:
    """Delete all but the strongest span of each duplicate-offset group, each deletion
    recorded in the audit trail; return how many were deleted. Takes the model classes
    so the migration (historical models) and tests can both call it."""
    groups = (
        span_model.objects.values("annotation_set_id", "start", "end")
        .annotate(n=models.Count("id"))
        .filter(n__gt=1)
    )
    doomed: list[Any] = []
    for group in groups.iterator():
        spans = list(
            span_model.objects.filter(
                annotation_set_id=group["annotation_set_id"],
                start=group["start"],
                end=group["end"],
            )
        )
        keeper = max(spans, key=_strength)
        doomed.extend(span for span in spans if span.id != keeper.id)
    if doomed:
        event_model.objects.bulk_create(
            event_model(
                span=None,
                span_key=span.id,
                annotation_set_id=span.annotation_set_id,
                action="delete",
                before=_snapshot(span),
                after={"merged_into_duplicate_offsets": True},
            )
            for span in doomed
        )
        span_model.objects.filter(id__in=[span.id for span in doomed]).delete()
    return len(doomed)


def _forwards(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        # PostgreSQL refuses the ALTER TABLE below while deferred foreign-key checks
        # from these deletions and audit rows are pending in the same transaction.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    merge_duplicate_spans(
        apps.get_model("annotation", "Span"), apps.get_model("annotation", "SpanEvent")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0003_modelversion_moved_to_ml"),
    ]

    operations = [
        migrations.RunPython(_forwards, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="span",
            constraint=models.UniqueConstraint(
                fields=("annotation_set", "start", "end"), name="span_unique_offsets"
            ),
        ),
    ]
