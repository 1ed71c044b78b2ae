"""The machine-run loop on the real database: ordering, skipping, batching, progress."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import AnnotationSet, Document, SetKind, SetSource, Span, SpanEvent
from annotation.services import machine_set_create
from annotation.services.machine_runs import MachineRunSummary, machine_run_store
from common.errors import DomainError
from sanitizer.types import EntitySpan
from tests.factories import DocumentFactory, JobFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def label_word(word: str, seen: list[list[str]]) -> Any:
    """A labeller marking every ``word`` (and recording the batches it was given)."""

    def label_batch(documents: Sequence[Document]) -> list[list[EntitySpan]]:
        seen.append([d.external_id for d in documents])
        out = []
        for document in documents:
            start = document.text.find(word)
            out.append(
                [EntitySpan(start, start + len(word), "LOC", word, identifier_type="QUASI")]
                if start >= 0
                else []
            )
        return out

    return label_batch


def store(project: Any, seen: list[list[str]], **options: Any) -> MachineRunSummary:
    arguments: dict[str, Any] = {
        "project": project,
        "source": SetSource.PREANNOTATION,
        "source_name": "word",
        "source_version": "word-v1",
        "label_batch": label_word("Ankara", seen),
        "parameters": {"batch_size": 2},
        "batch_size": 2,
    }
    return machine_run_store(**{**arguments, **options})


def make_documents(project: Any, count: int) -> list[Document]:
    # Created out of position order: the run follows (position, id).
    return [
        DocumentFactory.create(project=project, external_id=f"d{i}", position=count - i)
        for i in range(count)
    ]


def test_labels_every_document_in_position_order_in_batches_with_progress():
    project = ProjectFactory.create()
    documents = make_documents(project, 3)
    DocumentFactory.create(text="No places here.")  # another project: untouched
    seen: list[list[str]] = []
    reports: list[tuple[int, int, str]] = []

    summary = store(
        project,
        seen,
        progress=lambda done, total, message: reports.append((done, total, message)),
        start_message=lambda total, skipped: f"{total} to do, {skipped} done",
    )

    assert summary == MachineRunSummary(documents=3, skipped=0, spans=3)
    assert seen == [["d2", "d1"], ["d0"]]
    assert reports == [(0, 3, "3 to do, 0 done"), (2, 3, ""), (3, 3, "")]
    sets = AnnotationSet.objects.filter(kind=SetKind.MACHINE)
    assert sorted(s.document_id for s in sets) == sorted(d.pk for d in documents)
    for annotation_set in sets:
        assert annotation_set.source == SetSource.PREANNOTATION
        assert annotation_set.source_name == "word"
        assert annotation_set.source_version == "word-v1"
        assert annotation_set.parameters == {"batch_size": 2}
        assert annotation_set.job is None and annotation_set.created_by is None
    assert set(Span.objects.values_list("text", flat=True)) == {"Ankara"}
    assert SpanEvent.objects.count() == 3


def test_document_ids_limit_the_run_and_same_version_is_skipped_on_request():
    project = ProjectFactory.create()
    documents = make_documents(project, 3)
    seen: list[list[str]] = []

    first = store(project, seen, document_ids=[documents[0].pk])
    again = store(project, seen, skip_same_version=True)
    repeated = store(project, seen, document_ids=[documents[1].pk])

    assert (first.documents, first.skipped) == (1, 0)
    assert (again.documents, again.skipped) == (2, 1)
    # Without skip_same_version a repeated request labels again.
    assert (repeated.documents, repeated.skipped) == (1, 0)
    assert seen == [["d0"], ["d2", "d1"], ["d1"]]


def test_a_redelivered_job_skips_what_it_stored_and_records_the_job():
    project = ProjectFactory.create()
    make_documents(project, 3)
    user = UserFactory.create()
    job = JobFactory.create(project=project, created_by=user)
    other_job = JobFactory.create(project=project)
    seen: list[list[str]] = []
    messages: list[str] = []

    store(project, seen, job=other_job)
    first = store(project, seen, job=job, document_ids=None)
    second = store(
        project,
        seen,
        job=job,
        progress=lambda done, total, message: messages.append(message),
        start_message=lambda total, skipped: f"{total}/{skipped}",
    )

    assert (first.documents, first.skipped) == (3, 0)  # another job's sets do not count
    assert (second.documents, second.skipped, second.spans) == (0, 3, 0)
    assert messages == ["0/3"]
    mine = AnnotationSet.objects.filter(job=job)
    assert mine.count() == 3
    assert {s.created_by_id for s in mine} == {user.pk}


def test_per_document_parameters_and_a_failing_batch_keeps_earlier_batches():
    project = ProjectFactory.create()
    make_documents(project, 3)
    calls: list[list[str]] = []

    def label_batch(documents: Sequence[Document]) -> list[list[EntitySpan]]:
        calls.append([d.external_id for d in documents])
        if len(calls) == 2:
            # A span that does not match the text fails the second batch.
            return [[EntitySpan(0, 3, "MISC", "xyz")] for _ in documents]
        return [[] for _ in documents]

    with pytest.raises(DomainError):
        store(
            project,
            [],
            label_batch=label_batch,
            document_parameters=lambda document: {"explanation": document.external_id},
        )

    stored = AnnotationSet.objects.filter(kind=SetKind.MACHINE).select_related("document")
    assert sorted(s.document.external_id for s in stored) == ["d1", "d2"]
    assert {s.parameters["explanation"] for s in stored} == {"d1", "d2"}
    assert all(s.parameters["batch_size"] == 2 for s in stored)


# --- a new run of a kind replaces the previous one ------------------------------------


def test_a_rerun_replaces_the_previous_layer_and_keeps_it_as_history():
    project = ProjectFactory.create()
    (document,) = make_documents(project, 1)
    seen: list[list[str]] = []

    store(project, seen)
    first = AnnotationSet.objects.get(kind=SetKind.MACHINE)
    store(project, seen, source_version="word-v2")

    current = list(document.annotation_sets.filter(kind=SetKind.MACHINE))
    assert [s.source_version for s in current] == ["word-v2"]
    # The earlier run is history: kept with its spans, hidden from every default read.
    history = AnnotationSet.history.get(pk=first.pk)
    assert history.superseded_at is not None
    assert history.spans.count() == 1
    assert not AnnotationSet.objects.filter(pk=first.pk).exists()
    # A model's pre-annotation replaces the built-in recognizer's: one recognizer layer.
    store(project, seen, source=SetSource.MODEL, source_version="model-v1")
    assert [s.source for s in document.annotation_sets.all()] == [SetSource.MODEL]


def test_runs_of_different_kinds_stay_side_by_side():
    project = ProjectFactory.create()
    (document,) = make_documents(project, 1)

    store(project, [])
    store(project, [], source=SetSource.DISTANT, source_name="distant-labelling")
    store(project, [], source=SetSource.DISTANT, source_name="distant-labelling")

    sources = sorted(s.source for s in document.annotation_sets.all())
    assert sources == [SetSource.DISTANT, SetSource.PREANNOTATION]
    assert AnnotationSet.history.filter(document=document).count() == 3


def test_skip_same_version_looks_only_at_the_current_run():
    project = ProjectFactory.create()
    make_documents(project, 1)
    seen: list[list[str]] = []

    store(project, seen)  # v1
    store(project, seen, source_version="word-v2")  # replaces v1
    again = store(project, seen, skip_same_version=True)  # v1 is no longer current

    assert (again.documents, again.skipped) == (1, 0)
    assert AnnotationSet.objects.get(kind=SetKind.MACHINE).source_version == "word-v1"


def test_a_rerun_keeps_the_annotators_rejections():
    from annotation.services import annotation_set_for_annotator, suggestions_set_rejected

    project = ProjectFactory.create()
    (document,) = make_documents(project, 1)
    store(project, [])
    annotator = UserFactory.create()
    own = annotation_set_for_annotator(document=document, user=annotator)
    old = Span.objects.get(annotation_set__document=document)
    suggestions_set_rejected(annotation_set=own, span_ids=[old.pk], rejected=True, user=annotator)

    store(project, [], source_version="word-v2")

    new = Span.objects.get(annotation_set__in=document.annotation_sets.filter(kind=SetKind.MACHINE))
    own.refresh_from_db()
    assert own.parameters["rejected_suggestions"] == [old.pk, new.pk]


def test_a_machine_run_locks_its_document_before_superseding() -> None:
    # Two runs of one kind finishing together are serialised on the document row, so
    # the second supersedes the first and only one stays current.
    document = DocumentFactory.create()
    with CaptureQueriesContext(connection) as queries:
        machine_set_create(
            document=document,
            source=SetSource.PREANNOTATION,
            source_name="rules",
            source_version="1",
            spans=[],
        )
    statements = [
        q["sql"]
        for q in queries.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
    ]
    assert "FOR UPDATE" in statements[0]
    assert '"annotation_document"' in statements[0].split("WHERE")[0]
