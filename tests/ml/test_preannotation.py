"""Pre-annotation: the service on the real database, and the job through a real Celery worker."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from annotation.models import AnnotationSet, SetKind, SetSource, Span
from jobs.models import JobStatus
from jobs.services import job_create
from ml.loading import RULE_BASED_NAME, recognizer_load
from ml.services.preannotation import preannotate_documents
from tests.factories import DocumentFactory, JobFactory, ProjectFactory, UserFactory

if TYPE_CHECKING:
    from tests.celery_worker import CeleryWorker

pytest_plugins = ["tests.celery_worker"]

TEXTS = [
    "The applicant, Mr Galip Yalman, a Turkish journalist, was born on 5 August 1945 in Ankara.",
    "He lodged application no. 36110/97 against the Republic of Turkey on 12 March 1997.",
]


@pytest.mark.django_db
def test_preannotation_stores_typed_spans_with_the_recognizer_version():
    project = ProjectFactory.create()
    docs = [DocumentFactory.create(project=project, text=text) for text in TEXTS]
    result = preannotate_documents(project=project)
    version = recognizer_load(project=project).version
    assert result["documents"] == 2 and result["skipped"] == 0
    sets = AnnotationSet.objects.filter(document__in=docs, kind=SetKind.MACHINE)
    assert sets.count() == 2
    for annotation_set in sets:
        assert annotation_set.source == SetSource.PREANNOTATION
        assert annotation_set.source_name == RULE_BASED_NAME
        assert annotation_set.source_version == version
    spans = {(s.annotation_set.document_id, s.text): s.entity_type for s in Span.objects.all()}
    assert spans[(docs[0].pk, "Galip Yalman")] == "PERSON"
    assert spans[(docs[0].pk, "5 August 1945")] == "DATETIME"
    assert spans[(docs[1].pk, "36110/97")] == "CODE"
    for span in Span.objects.select_related("annotation_set__document"):
        assert span.annotation_set.document.text[span.start : span.end] == span.text
    assert result["spans"] == Span.objects.count()


@pytest.mark.django_db
def test_preannotation_is_idempotent():
    project = ProjectFactory.create()
    DocumentFactory.create(project=project, text=TEXTS[0])
    first = preannotate_documents(project=project)
    again = preannotate_documents(project=project)
    assert first["documents"] == 1
    assert again["documents"] == 0 and again["skipped"] == 1
    assert AnnotationSet.objects.filter(kind=SetKind.MACHINE).count() == 1
    rerun = preannotate_documents(project=project, skip_existing=False)
    assert rerun["documents"] == 1
    # The re-run replaces the first layer (kept as history), it does not add one.
    assert AnnotationSet.objects.filter(kind=SetKind.MACHINE).count() == 1
    assert AnnotationSet.history.filter(kind=SetKind.MACHINE).count() == 2


@pytest.mark.django_db
def test_preannotation_skips_documents_this_job_already_did():
    project = ProjectFactory.create()
    DocumentFactory.create(project=project, text=TEXTS[0])
    DocumentFactory.create(project=project, text=TEXTS[1])
    job = JobFactory.create(project=project, kind="preannotate")
    preannotate_documents(project=project, job=job, skip_existing=False)
    # A redelivered task of the same job must not add a second set per document.
    again = preannotate_documents(project=project, job=job, skip_existing=False)
    assert again["documents"] == 0
    assert AnnotationSet.objects.filter(job=job).count() == 2


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_preannotation_job_runs_in_a_real_worker(celery_worker: CeleryWorker):
    project = ProjectFactory.create()
    user = UserFactory.create()
    for text in TEXTS * 3:
        DocumentFactory.create(project=project, text=text)
    job = job_create(kind="preannotate", params={"batch_size": 2}, project=project, created_by=user)
    job, _observed = celery_worker.wait_for_job(job.pk, timeout=240)
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.progress_done == job.progress_total == 6
    assert job.result["documents"] == 6
    sets = AnnotationSet.objects.filter(job=job)
    assert sets.count() == 6
    assert {s.source_version for s in sets} == {job.result["version"]}
    assert (
        Span.objects.filter(annotation_set__job=job, entity_type="CODE", text="36110/97").count()
        == 3
    )
    assert "6 documents" in job.log_tail


@pytest.mark.django_db
def test_preannotate_command_inline_and_background(django_capture_on_commit_callbacks):
    from io import StringIO

    from django.core.management import call_command

    from jobs.models import Job

    project = ProjectFactory.create(name="cmd project")
    DocumentFactory.create(project=project, text=TEXTS[1])
    out = StringIO()
    call_command("preannotate", "--project", "cmd project", stdout=out)
    assert "pre-annotated 1 documents (0 skipped)" in out.getvalue()
    assert Span.objects.filter(text="36110/97", entity_type="CODE").count() == 1
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        call_command("preannotate", "--project", "cmd project", "--background", stdout=StringIO())
    job = Job.objects.get(kind="preannotate")
    assert job.params == {"batch_size": 8, "skip_existing": True}
    assert len(callbacks) == 1  # queued once the transaction commits


@pytest.mark.django_db
def test_a_project_chooses_the_rule_based_recognizers_components():
    project = ProjectFactory.create(privacy_settings={"recognizer_components": ["rules"]})
    DocumentFactory.create(project=project, text=TEXTS[1])
    default = recognizer_load(project=None, use_active=False)
    chosen = recognizer_load(project=project)
    assert chosen.version != default.version
    assert "|rules[" in chosen.version and "gazetteer[" not in chosen.version
    result = preannotate_documents(project=project)
    assert result["version"] == chosen.version
    stored = AnnotationSet.objects.get(document__project=project, kind=SetKind.MACHINE)
    assert stored.source_version == chosen.version
    # Only the pattern rules ran: the application number, not the named entities.
    assert {s.text for s in stored.spans.all()} >= {"36110/97"}
    assert "Republic of Turkey" not in {s.text for s in stored.spans.all()}
