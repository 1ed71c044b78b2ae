"""Adjudication writes on the real database: adopting versions into gold, one-action
completion of unanimous documents, rejected suggestions."""

from __future__ import annotations

import pytest

from annotation.models import DocumentStatus, SetKind, SetStatus, SpanAction, SpanEvent
from annotation.selectors import gold_unresolved_regions
from annotation.services import (
    UnresolvedRegionsError,
    gold_adopt_set,
    gold_adopt_spans,
    gold_complete_unanimous,
    gold_publish,
    gold_set_for_document,
    suggestions_set_rejected,
)
from common.errors import DomainError
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


def test_complete_ignores_sets_still_in_progress(document):
    # A set nobody handed in (e.g. one a reviewer's keypress once created) does not
    # count: it neither blocks completion nor makes a disagreement.
    _set(document, [(0, 4, "DIRECT")])
    _set(document, [(0, 4, "NO_MASK"), (10, 14, "QUASI")], status=SetStatus.IN_PROGRESS)
    gold_complete_unanimous(document=document, user=UserFactory.create())
    assert _gold_rows(document) == [(0, 4, "DIRECT")]


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
    assert gold_publish(document=document, user=reviewer).published_at is not None


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
