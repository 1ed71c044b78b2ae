"""Adjudication writes on the real database: adopting versions into gold, one-action
completion of unanimous documents, rejected suggestions."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import DocumentStatus, SetKind, SetStatus, SpanAction, SpanEvent
from annotation.selectors import gold_unresolved_regions
from annotation.services import (
    UnresolvedRegionsError,
    gold_adopt_set,
    gold_adopt_spans,
    gold_complete_unanimous,
    gold_publish,
    gold_set_for_document,
    review,
    suggestions_set_rejected,
)
from common.errors import DomainError, StaleVersionError
from tests.annotation.concurrency import in_another_connection
from tests.factories import AnnotationSetFactory, DocumentFactory, SpanFactory, UserFactory

pytestmark = pytest.mark.django_db

TEXT = "aaaa bbbb cccc dddd"


@pytest.fixture
def document():
    return DocumentFactory.create(text=TEXT)


def _set(document, spans, *, annotator=None, kind=SetKind.HUMAN, status=SetStatus.SUBMITTED):
    annotation_set = AnnotationSetFactory.create(
        document=document,
        kind=kind,
        annotator=annotator or (UserFactory.create() if kind == SetKind.HUMAN else None),
        status=status,
    )
    return annotation_set, [
        SpanFactory.create(annotation_set=annotation_set, start=s, end=e, identifier_type=i)
        for s, e, i in spans
    ]


def _gold_rows(document):
    gold = document.annotation_sets.get(kind=SetKind.GOLD)
    return list(gold.spans.order_by("start").values_list("start", "end", "identifier_type"))


def test_adopt_copies_a_version_and_replaces_overlapping_gold(document):
    reviewer = UserFactory.create()
    _, (a1,) = _set(document, [(5, 9, "QUASI")])
    _, (b1,) = _set(document, [(5, 14, "NO_MASK")])
    gold_adopt_spans(document=document, spans=[a1], user=reviewer)
    assert _gold_rows(document) == [(5, 9, "QUASI")]
    # Adopting the other version over the region replaces the first choice.
    created = gold_adopt_spans(document=document, spans=[b1], user=reviewer)
    assert _gold_rows(document) == [(5, 14, "NO_MASK")]
    assert created[0].attrs["adopted_from"] == {
        "span": b1.pk,
        "annotation_set": b1.annotation_set_id,
    }
    actions = list(
        SpanEvent.objects.filter(annotation_set=created[0].annotation_set).values_list(
            "action", flat=True
        )
    )
    assert actions == [SpanAction.CREATE, SpanAction.DELETE, SpanAction.CREATE]


def test_adopt_nothing_clears_the_region(document):
    reviewer = UserFactory.create()
    _, (a1,) = _set(document, [(0, 4, "DIRECT")])
    gold_adopt_spans(document=document, spans=[a1], user=reviewer)
    gold_adopt_spans(document=document, spans=[], user=reviewer, start=0, end=4)
    assert _gold_rows(document) == []


def test_adopt_refuses_spans_of_another_document(document):
    _, (foreign,) = _set(DocumentFactory.create(text=TEXT), [(0, 4, "DIRECT")])
    with pytest.raises(DomainError):
        gold_adopt_spans(document=document, spans=[foreign], user=UserFactory.create())


def test_complete_unanimous_copies_and_publishes(document):
    reviewer = UserFactory.create()
    spans = [(0, 4, "DIRECT"), (10, 14, "QUASI")]
    first, _ = _set(document, spans)
    _second, _ = _set(document, spans)
    gold = gold_complete_unanimous(document=document, user=reviewer)
    assert _gold_rows(document) == [(0, 4, "DIRECT"), (10, 14, "QUASI")]
    assert gold.published_at is not None
    document.refresh_from_db()
    assert document.status == DocumentStatus.ADJUDICATED
    first.refresh_from_db()
    assert first.status == SetStatus.REVIEWED


def test_complete_refuses_when_annotators_disagree(document):
    _set(document, [(0, 4, "DIRECT")])
    _set(document, [(0, 4, "QUASI")])
    with pytest.raises(DomainError, match="disagree on 1 region"):
        gold_complete_unanimous(document=document, user=UserFactory.create())
    assert not document.annotation_sets.filter(kind=SetKind.GOLD).exists()


def test_complete_ignores_empty_sets_still_in_progress(document):
    # An empty set nobody handed in (e.g. one a reviewer's keypress once created) does
    # not count: it neither blocks completion nor makes a disagreement.
    _set(document, [(0, 4, "DIRECT")])
    empty, _ = _set(document, [], status=SetStatus.IN_PROGRESS)
    gold_complete_unanimous(document=document, user=UserFactory.create())
    assert _gold_rows(document) == [(0, 4, "DIRECT")]
    empty.refresh_from_db()
    assert empty.status == SetStatus.IN_PROGRESS


def test_complete_refuses_while_an_annotator_is_still_marking(document):
    # Completing would publish gold and pass over marks that are not handed in yet.
    _set(document, [(0, 4, "DIRECT")])
    working, _ = _set(document, [(0, 4, "DIRECT"), (10, 14, "QUASI")], status=SetStatus.IN_PROGRESS)
    name = working.annotator.get_username()
    with pytest.raises(DomainError, match=rf"still working.*{name} \(2 span\(s\)\)"):
        gold_complete_unanimous(document=document, user=UserFactory.create())
    assert not document.annotation_sets.filter(kind=SetKind.GOLD).exists()
    working.refresh_from_db()
    assert working.status == SetStatus.IN_PROGRESS


def test_complete_refuses_when_nothing_is_submitted(document):
    _set(document, [(0, 4, "DIRECT")], status=SetStatus.IN_PROGRESS)
    with pytest.raises(DomainError, match="no annotator has submitted"):
        gold_complete_unanimous(document=document, user=UserFactory.create())


def test_publish_with_undecided_regions_needs_force(document):
    reviewer = UserFactory.create()
    _, (a1, _) = _set(document, [(0, 4, "DIRECT"), (10, 14, "QUASI")])
    _set(document, [(0, 4, "QUASI")])
    _set(document, [(15, 19, "QUASI")], status=SetStatus.IN_PROGRESS)  # not a region
    gold_adopt_spans(document=document, spans=[a1], user=reviewer)
    assert gold_unresolved_regions(document=document) == {"total": 2, "unresolved": [(10, 14)]}
    with pytest.raises(UnresolvedRegionsError) as refused:
        gold_publish(document=document, user=reviewer)
    assert (refused.value.unresolved, refused.value.total) == (1, 2)
    gold = document.annotation_sets.get(kind=SetKind.GOLD)
    assert gold.published_at is None
    # "Nothing to mark here" decides the region too.
    gold_adopt_spans(document=document, spans=[], user=reviewer, start=10, end=14)
    assert gold_unresolved_regions(document=document)["unresolved"] == []
    # The set in progress holds a mark: publishing without force warns about it too.
    with pytest.raises(UnresolvedRegionsError, match="marks not submitted") as refused:
        gold_publish(document=document, user=reviewer)
    assert refused.value.unresolved == 0
    assert [p["spans"] for p in refused.value.in_progress] == [1]
    assert gold_publish(document=document, user=reviewer, force=True).published_at is not None


def test_publish_with_force_leaves_regions_undecided(document):
    reviewer = UserFactory.create()
    _set(document, [(0, 4, "DIRECT")])
    gold_set_for_document(document=document, user=reviewer)
    gold = gold_publish(document=document, user=reviewer, force=True)
    assert gold.published_at is not None


def test_adopt_a_whole_set_in_one_call(document):
    reviewer = UserFactory.create()
    source, _ = _set(document, [(0, 4, "DIRECT"), (10, 14, "QUASI")])
    _set(document, [(0, 4, "QUASI"), (15, 19, "DIRECT")])
    _, (old,) = _set(document, [(5, 9, "NO_MASK")])
    gold_adopt_spans(document=document, spans=[old], user=reviewer)
    gold = gold_adopt_set(document=document, source=source, user=reviewer)
    assert _gold_rows(document) == [(0, 4, "DIRECT"), (10, 14, "QUASI")]
    # The regions where the adopted set marks nothing are decided as "nothing".
    assert gold_unresolved_regions(document=document)["unresolved"] == []
    actions = list(SpanEvent.objects.filter(annotation_set=gold).values_list("action", flat=True))
    assert actions == [SpanAction.CREATE, SpanAction.DELETE, SpanAction.CREATE, SpanAction.CREATE]
    with pytest.raises(DomainError, match="already the gold set"):
        gold_adopt_set(document=document, source=gold, user=reviewer)
    with pytest.raises(DomainError, match="another document"):
        gold_adopt_set(document=DocumentFactory.create(text=TEXT), source=source, user=reviewer)


def test_rejections_are_kept_in_the_annotators_set(document):
    own, _ = _set(document, [], status=SetStatus.IN_PROGRESS)
    _, (suggestion,) = _set(document, [(0, 4, "DIRECT")], kind=SetKind.MACHINE)
    user = own.annotator
    assert suggestions_set_rejected(
        annotation_set=own, span_ids=[suggestion.pk], rejected=True, user=user
    ) == [suggestion.pk]
    own.refresh_from_db()
    assert own.parameters["rejected_suggestions"] == [suggestion.pk]
    assert (
        suggestions_set_rejected(
            annotation_set=own, span_ids=[suggestion.pk], rejected=False, user=user
        )
        == []
    )
    _, (human_span,) = _set(document, [(5, 9, "QUASI")])
    with pytest.raises(DomainError):
        suggestions_set_rejected(
            annotation_set=own, span_ids=[human_span.pk], rejected=True, user=user
        )


def test_publish_closes_submitted_sets_only(document):
    reviewer = UserFactory.create()
    submitted, _ = _set(document, [(0, 4, "DIRECT")])
    working, _ = _set(document, [(5, 9, "QUASI")], status=SetStatus.IN_PROGRESS)
    gold_set_for_document(document=document, user=reviewer)
    gold_publish(document=document, user=reviewer, force=True)
    submitted.refresh_from_db()
    working.refresh_from_db()
    assert submitted.status == SetStatus.REVIEWED
    # The annotator still at work keeps an open set: nothing they mark is lost.
    assert (working.status, working.reviewed_at) == (SetStatus.IN_PROGRESS, None)


def test_publish_takes_the_document_lock_adoption_takes(document):
    reviewer = UserFactory.create()
    gold_set_for_document(document=document, user=reviewer)
    with CaptureQueriesContext(connection) as queries:
        gold_publish(document=document, user=reviewer, force=True)
    locks = [q["sql"] for q in queries.captured_queries if "FOR UPDATE" in q["sql"]]
    assert locks and '"annotation_document"' in locks[0].split("WHERE")[0]


def test_a_mark_added_inside_a_region_decided_empty_reopens_it(document):
    reviewer = UserFactory.create()
    _set(document, [(10, 14, "QUASI")])
    gold_adopt_spans(document=document, spans=[], user=reviewer, start=10, end=14)
    assert gold_unresolved_regions(document=document)["unresolved"] == []
    # Another annotator hands in a mark within the same stretch: a new decision is due.
    _set(document, [(11, 13, "DIRECT")])
    assert gold_unresolved_regions(document=document)["unresolved"] == [(10, 14)]
    with pytest.raises(UnresolvedRegionsError):
        gold_publish(document=document, user=reviewer)


def test_a_retyped_mark_reopens_its_region_decided_empty(document):
    reviewer = UserFactory.create()
    _, (span,) = _set(document, [(10, 14, "NO_MASK")])
    gold_adopt_spans(document=document, spans=[], user=reviewer, start=10, end=14)
    assert gold_unresolved_regions(document=document)["unresolved"] == []
    span.identifier_type = "DIRECT"
    span.save()
    assert gold_unresolved_regions(document=document)["unresolved"] == [(10, 14)]


def test_regions_decided_empty_are_never_merged(document):
    # Two touching regions decided one by one do not cover a mark spanning both.
    reviewer = UserFactory.create()
    _set(document, [(0, 4, "QUASI"), (4, 9, "QUASI")])
    gold_adopt_spans(document=document, spans=[], user=reviewer, start=0, end=4)
    gold_adopt_spans(document=document, spans=[], user=reviewer, start=4, end=9)
    assert gold_unresolved_regions(document=document)["unresolved"] == []
    _set(document, [(2, 7, "DIRECT")])
    assert gold_unresolved_regions(document=document)["unresolved"] == [(0, 9)]


def test_adopt_all_decides_empty_regions_that_a_later_mark_reopens(document):
    reviewer = UserFactory.create()
    source, _ = _set(document, [(0, 4, "DIRECT")])
    _set(document, [(10, 14, "QUASI")])
    gold_adopt_set(document=document, source=source, user=reviewer)
    assert gold_unresolved_regions(document=document)["unresolved"] == []
    _set(document, [(10, 14, "DIRECT")])
    assert gold_unresolved_regions(document=document)["unresolved"] == [(10, 14)]


def test_old_format_empty_decisions_decide_nothing(document):
    reviewer = UserFactory.create()
    _set(document, [(10, 14, "QUASI")])
    gold = gold_set_for_document(document=document, user=reviewer)
    gold.parameters = {"resolved_empty": [[0, 19], "junk", {"start": 10}]}
    gold.save()
    assert gold_unresolved_regions(document=document)["unresolved"] == [(10, 14)]
    gold_adopt_spans(document=document, spans=[], user=reviewer, start=10, end=14)
    assert gold_unresolved_regions(document=document)["unresolved"] == []


@pytest.mark.django_db(transaction=True)
def test_adopt_all_racing_a_gold_span_create_is_a_conflict(document, monkeypatch):
    reviewer = UserFactory.create()
    source, _ = _set(document, [(0, 4, "DIRECT")])
    gold = gold_set_for_document(document=document, user=reviewer)
    create_logged = review.spans_create_logged

    def racing(spans, user):
        # The reviewer's other tab creates (and commits) a gold span at the same
        # offsets after adoption cleared gold and before it inserts its copies.
        in_another_connection(
            lambda: SpanFactory.create(
                annotation_set=gold, start=0, end=4, identifier_type="NO_MASK"
            )
        )
        create_logged(spans, user)

    monkeypatch.setattr(review, "spans_create_logged", racing)
    with pytest.raises(StaleVersionError) as conflict:
        gold_adopt_set(document=document, source=source, user=reviewer)
    assert conflict.value.current is not None
    assert (conflict.value.current["start"], conflict.value.current["identifier_type"]) == (
        0,
        "NO_MASK",
    )
