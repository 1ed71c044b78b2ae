"""Write services on the real database: audit trail, concurrency, immutability, gold."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from annotation.models import (
    AnnotationSet,
    DocumentStatus,
    Membership,
    Project,
    Role,
    SetKind,
    SetSource,
    SetStatus,
    Span,
    SpanAction,
    SpanEvent,
)
from annotation.services import (
    annotation_set_for_annotator,
    annotation_set_submit,
    document_import,
    document_update,
    gold_publish,
    gold_set_for_document,
    machine_set_create,
    membership_delete,
    project_create,
    span_create,
    span_delete,
    span_update,
    spans_set_decision_for_entity,
)
from common.errors import DomainError, StaleVersionError
from sanitizer.types import EntitySpan
from tests.factories import (
    SAMPLE_TEXT,
    AnnotationSetFactory,
    DocumentFactory,
    SpanFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

YEAR = SAMPLE_TEXT.index("1945")
ANKARA = SAMPLE_TEXT.index("Ankara")


def snapshot(value: Any) -> dict[str, Any]:
    """An audit-trail snapshot, which must be present."""
    assert isinstance(value, dict)
    return value


def snapshot_fields(span: Span) -> tuple[object, ...]:
    span.refresh_from_db()
    return (span.start, span.end, span.text, span.entity_type, span.identifier_type, span.version)


# --- spans and the audit trail --------------------------------------------------------


def test_span_create_stores_the_text_and_logs_an_event():
    annotation_set = AnnotationSetFactory.create()
    user = annotation_set.annotator

    span = span_create(
        annotation_set=annotation_set,
        user=user,
        start=YEAR,
        end=YEAR + 4,
        entity_type="DATETIME",
        identifier_type="QUASI",
        note="birth year",
    )

    assert span.text == "1945"
    assert span.version == 1
    event = SpanEvent.objects.get()
    assert event.action == SpanAction.CREATE
    assert event.user == user
    assert event.span == span
    assert event.span_key == span.pk
    assert event.before is None
    assert snapshot(event.after)["text"] == "1945"
    assert snapshot(event.after)["note"] == "birth year"
    assert snapshot(event.after)["version"] == 1


@pytest.mark.parametrize(
    ("start", "end"),
    [(YEAR, YEAR), (YEAR + 4, YEAR), (0, len(SAMPLE_TEXT) + 1)],
    ids=["empty", "reversed", "past the end"],
)
def test_span_create_rejects_bad_offsets_and_writes_nothing(start, end):
    annotation_set = AnnotationSetFactory.create()
    with pytest.raises(ValidationError):
        span_create(
            annotation_set=annotation_set,
            user=annotation_set.annotator,
            start=start,
            end=end,
            entity_type="DATETIME",
        )
    assert not Span.objects.exists()
    assert not SpanEvent.objects.exists()


def test_span_create_rejects_unknown_entity_type():
    annotation_set = AnnotationSetFactory.create()
    with pytest.raises(ValidationError):
        span_create(
            annotation_set=annotation_set, user=None, start=YEAR, end=YEAR + 4, entity_type="YEAR"
        )
    assert not Span.objects.exists()


def test_span_update_logs_before_and_after_and_bumps_the_version():
    span = SpanFactory.create()
    user = span.annotation_set.annotator

    updated = span_update(
        span=span, user=user, expected_version=1, start=YEAR, end=YEAR + 4, entity_type="DATETIME"
    )

    assert (updated.start, updated.end, updated.text) == (YEAR, YEAR + 4, "1945")
    assert updated.version == 2
    event = SpanEvent.objects.get()
    assert event.action == SpanAction.UPDATE
    assert event.user == user
    assert snapshot(event.before)["text"] == "Galip Yalman"
    assert snapshot(event.before)["entity_type"] == "PERSON"
    assert snapshot(event.before)["version"] == 1
    assert snapshot(event.after)["text"] == "1945"
    assert snapshot(event.after)["entity_type"] == "DATETIME"
    assert snapshot(event.after)["version"] == 2


def test_span_update_with_a_stale_version_changes_nothing():
    span = SpanFactory.create()
    span_update(span=span, user=None, expected_version=1, identifier_type="QUASI")
    before = snapshot_fields(span)

    with pytest.raises(StaleVersionError) as error:
        span_update(span=span, user=None, expected_version=1, identifier_type="NO_MASK")

    assert error.value.current is not None
    assert error.value.current["version"] == 2
    assert error.value.current["identifier_type"] == "QUASI"
    assert snapshot_fields(span) == before
    assert SpanEvent.objects.count() == 1


def test_span_update_rejects_fields_that_are_not_editable():
    span = SpanFactory.create()
    with pytest.raises(DomainError, match="cannot change text"):
        span_update(span=span, user=None, expected_version=1, text="Someone else")
    assert snapshot_fields(span)[2] == "Galip Yalman"


def test_span_update_to_invalid_offsets_rolls_back():
    span = SpanFactory.create()
    before = snapshot_fields(span)
    with pytest.raises(ValidationError):
        span_update(span=span, user=None, expected_version=1, end=len(SAMPLE_TEXT) + 5)
    assert snapshot_fields(span) == before
    assert not SpanEvent.objects.exists()


def test_span_delete_logs_the_last_state_and_keeps_the_event():
    span = SpanFactory.create()
    key = span.pk
    user = span.annotation_set.annotator

    span_delete(span=span, user=user, expected_version=1)

    assert not Span.objects.filter(pk=key).exists()
    event = SpanEvent.objects.get()
    assert event.action == SpanAction.DELETE
    assert event.span is None
    assert event.span_key == key
    assert snapshot(event.before)["text"] == "Galip Yalman"
    assert event.after is None


def test_span_delete_with_a_stale_version_keeps_the_span():
    span = SpanFactory.create()
    span_update(span=span, user=None, expected_version=1, note="checked")
    with pytest.raises(StaleVersionError):
        span_delete(span=span, user=None, expected_version=1)
    assert Span.objects.filter(pk=span.pk).exists()


def test_full_history_of_a_span_is_kept_in_order():
    annotation_set = AnnotationSetFactory.create()
    span = span_create(
        annotation_set=annotation_set, user=None, start=18, end=30, entity_type="PERSON"
    )
    span_update(span=span, user=None, expected_version=1, identifier_type="DIRECT")
    span_delete(span=span, user=None)
    events = list(SpanEvent.objects.filter(span_key=span.pk))
    assert [e.action for e in events] == ["create", "update", "delete"]
    assert snapshot(events[1].before)["identifier_type"] == "QUASI"
    assert snapshot(events[1].after)["identifier_type"] == "DIRECT"


def test_decision_for_an_entity_applies_to_all_its_mentions():
    annotation_set = AnnotationSetFactory.create()
    a = SpanFactory.create(annotation_set=annotation_set, entity_id="e1", identifier_type="QUASI")
    b = SpanFactory.create(
        annotation_set=annotation_set,
        start=ANKARA,
        end=ANKARA + 6,
        entity_type="LOC",
        entity_id="e1",
        identifier_type="DIRECT",
    )
    other = SpanFactory.create(
        annotation_set=annotation_set,
        start=YEAR,
        end=YEAR + 4,
        entity_type="DATETIME",
        entity_id="e2",
        identifier_type="QUASI",
    )

    count = spans_set_decision_for_entity(
        annotation_set=annotation_set, entity_id="e1", identifier_type="DIRECT", user=None
    )

    assert count == 1
    a.refresh_from_db()
    b.refresh_from_db()
    other.refresh_from_db()
    assert (a.identifier_type, a.version) == ("DIRECT", 2)
    assert (b.identifier_type, b.version) == ("DIRECT", 1)
    assert other.identifier_type == "QUASI"
    event = SpanEvent.objects.get()
    assert event.span_key == a.pk
    assert (snapshot(event.before)["version"], snapshot(event.after)["version"]) == (1, 2)


# --- machine runs ---------------------------------------------------------------------


def _machine_set() -> AnnotationSet:
    document = DocumentFactory.create()
    return machine_set_create(
        document=document,
        source=SetSource.PREANNOTATION,
        source_name="spacy",
        source_version="en_core_web_sm-3.8",
        spans=[EntitySpan(18, 30, "PERSON", "Galip Yalman", source="ner", confidence=0.9)],
        parameters={"threshold": 0.5},
    )


def test_machine_set_records_where_its_spans_came_from():
    machine = _machine_set()
    assert machine.kind == SetKind.MACHINE
    assert machine.annotator is None
    assert (machine.source_name, machine.source_version) == ("spacy", "en_core_web_sm-3.8")
    span = Span.objects.filter(annotation_set=machine).get()
    assert (span.text, span.confidence, span.attrs) == ("Galip Yalman", 0.9, {"source": "ner"})


def test_machine_set_with_a_span_not_matching_the_text_is_refused():
    document = DocumentFactory.create()
    with pytest.raises(DomainError, match="does not match"):
        machine_set_create(
            document=document,
            source=SetSource.PREANNOTATION,
            source_name="spacy",
            source_version="1",
            spans=[EntitySpan(0, 5, "PERSON", "Galip")],
        )
    assert not AnnotationSet.objects.exists()


def test_machine_sets_are_read_only():
    machine = _machine_set()
    span = Span.objects.filter(annotation_set=machine).get()
    with pytest.raises(DomainError, match="read-only"):
        span_create(annotation_set=machine, user=None, start=YEAR, end=YEAR + 4, entity_type="DEM")
    with pytest.raises(DomainError, match="read-only"):
        span_update(span=span, user=None, expected_version=1, identifier_type="NO_MASK")
    with pytest.raises(DomainError, match="read-only"):
        span_delete(span=span, user=None)
    with pytest.raises(DomainError, match="read-only"):
        spans_set_decision_for_entity(
            annotation_set=machine, entity_id="", identifier_type="NO_MASK", user=None
        )
    span.refresh_from_db()
    assert (span.identifier_type, span.version) == ("QUASI", 1)
    assert Span.objects.filter(annotation_set=machine).count() == 1
    # Only the machine run's own CREATE event: the refused edits left no trace.
    assert list(SpanEvent.objects.values_list("action", flat=True)) == ["create"]


# --- documents ------------------------------------------------------------------------


def test_text_of_an_annotated_document_cannot_change():
    span = SpanFactory.create()
    document = span.annotation_set.document
    with pytest.raises(DomainError, match="cannot change"):
        document_update(document=document, text=SAMPLE_TEXT.upper())
    document.refresh_from_db()
    assert document.text == SAMPLE_TEXT


def test_text_of_an_unannotated_document_can_change_and_meta_always_can():
    document = DocumentFactory.create()
    document_update(document=document, text="A new text.")
    document.refresh_from_db()
    assert document.text == "A new text."

    annotated = SpanFactory.create().annotation_set.document
    document_update(document=annotated, meta={"year": 1999}, text=SAMPLE_TEXT, split="dev")
    annotated.refresh_from_db()
    assert (annotated.meta, annotated.split) == ({"year": 1999}, "dev")


# --- annotation sets and gold ---------------------------------------------------------


def test_annotator_set_is_created_once_and_marks_the_document_in_progress():
    document = DocumentFactory.create()
    user = UserFactory.create()
    first = annotation_set_for_annotator(document=document, user=user)
    again = annotation_set_for_annotator(document=document, user=user)
    assert first.pk == again.pk
    document.refresh_from_db()
    assert document.status == DocumentStatus.IN_PROGRESS


def test_submitting_the_last_open_set_marks_the_document_annotated():
    document = DocumentFactory.create()
    a = annotation_set_for_annotator(document=document, user=UserFactory.create())
    b = annotation_set_for_annotator(document=document, user=UserFactory.create())
    annotation_set_submit(annotation_set=a, user=a.annotator)
    document.refresh_from_db()
    assert document.status == DocumentStatus.IN_PROGRESS
    annotation_set_submit(annotation_set=b, user=b.annotator)
    document.refresh_from_db()
    assert document.status == DocumentStatus.ANNOTATED
    with pytest.raises(DomainError, match="already submitted"):
        annotation_set_submit(annotation_set=b, user=b.annotator)


def test_gold_publication_closes_the_human_sets():
    span = SpanFactory.create()
    human = span.annotation_set
    document = human.document
    reviewer = UserFactory.create()
    with pytest.raises(DomainError, match="no gold set"):
        gold_publish(document=document, user=reviewer)

    gold = gold_set_for_document(document=document, user=reviewer)
    assert gold_set_for_document(document=document, user=reviewer).pk == gold.pk
    gold_span = span_create(
        annotation_set=gold, user=reviewer, start=18, end=30, entity_type="PERSON"
    )
    # A set still in progress holding spans is left open (and warned about) ...
    with pytest.raises(DomainError, match="marks not submitted"):
        gold_publish(document=document, user=reviewer)
    # ... a submitted one is closed by publication.
    human.status = SetStatus.SUBMITTED
    human.save()
    published = gold_publish(document=document, user=reviewer)

    assert published.published_at is not None
    assert published.status == SetStatus.REVIEWED
    assert published.reviewed_by == reviewer
    human.refresh_from_db()
    document.refresh_from_db()
    assert human.status == SetStatus.REVIEWED
    assert document.status == DocumentStatus.ADJUDICATED
    # Reviewed human sets are closed; the gold set stays editable for reviewers.
    with pytest.raises(DomainError, match="closed"):
        span_update(span=span, user=human.annotator, expected_version=1, note="late")
    span_update(span=gold_span, user=reviewer, expected_version=1, identifier_type="DIRECT")


# --- projects and members -------------------------------------------------------------


def test_project_creator_becomes_admin_and_the_last_admin_stays():
    user = UserFactory.create()
    project = project_create(name="Court cases", created_by=user)
    membership = Membership.objects.get(project=project, user=user)
    assert membership.role == Role.ADMIN
    with pytest.raises(DomainError, match="at least one admin"):
        membership_delete(membership=membership)
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_project_with_invalid_settings_is_refused():
    with pytest.raises(ValidationError):
        project_create(name="Bad", risk_threshold=1.5)
    assert not Project.objects.exists()


def test_imports_and_machine_runs_are_in_the_audit_trail(tab_sample_path):
    project = Project.objects.create(name="audited")
    summary = document_import(project=project, path=tab_sample_path, fmt="tab")
    machine = _machine_set()
    events = SpanEvent.objects.filter(action="create")
    assert events.filter(annotation_set__document__project=project).count() == summary.spans
    assert events.filter(annotation_set=machine).count() == 1
    event = events.filter(annotation_set__document__project=project).first()
    assert event is not None and event.before is None
    assert event.span is not None and snapshot(event.after)["text"] == event.span.text


def test_updating_a_span_deleted_meanwhile_is_a_conflict():
    user = UserFactory.create()
    annotation_set = AnnotationSetFactory.create(annotator=user)
    span = SpanFactory.create(annotation_set=annotation_set)
    stale = Span.objects.get(pk=span.pk)
    span_delete(span=span, user=user)
    with pytest.raises(StaleVersionError) as error:
        span_update(span=stale, user=user, expected_version=1, identifier_type="QUASI")
    assert error.value.current is None
