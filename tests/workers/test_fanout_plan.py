"""Planning a fan-out: chunks in reading order, and the recognizer pinned for all."""

from __future__ import annotations

from typing import Any

import pytest

from jobs.models import Job, JobChunk
from jobs.services import job_start
from ml.models import ModelKind
from tests.factories import DocumentFactory, JobFactory, ModelVersionFactory, ProjectFactory
from workers.fanout import fan_out_body, plan_by_documents
from workers.kinds import JOB_KINDS
from workers.runner import FANNED_OUT, Reporter

pytestmark = pytest.mark.django_db

PREANNOTATE = next(entry for entry in JOB_KINDS if entry.name == "preannotate")


def _job(documents: int, **params: Any) -> tuple[Job, list[int]]:
    project = ProjectFactory.create()
    # Positions in reverse creation order: the plan follows reading order, not ids.
    ids = [
        DocumentFactory.create(project=project, position=documents - i).pk for i in range(documents)
    ]
    job = JobFactory.create(kind="preannotate", queue="gpu", project=project, params=params)
    job_start(job_id=job.pk, task_id="plan")
    return Job.objects.get(pk=job.pk), list(reversed(ids))


def test_the_plan_cuts_the_documents_in_reading_order(settings: Any) -> None:
    settings.JOBS_CHUNK_DOCUMENTS = 2
    job, in_order = _job(5)
    assert plan_by_documents(job) == [
        {"document_ids": in_order[0:2]},
        {"document_ids": in_order[2:4]},
        {"document_ids": in_order[4:5]},
    ]
    # The job's own chunk size and document list win; ids of other projects drop out.
    other = DocumentFactory.create().pk
    job.params = {"chunk_size": 3, "document_ids": [in_order[4], in_order[0], other]}
    assert plan_by_documents(job) == [{"document_ids": [in_order[0], in_order[4]]}]


def _fan_out(job: Job, capture: Any) -> list[JobChunk]:
    assert PREANNOTATE.fan_out is not None
    body = fan_out_body(PREANNOTATE.body, PREANNOTATE.fan_out, PREANNOTATE.chunk_task_name)
    with capture(execute=False):  # nothing is sent to a broker here
        assert body(job, Reporter(job.pk)) is FANNED_OUT
    return list(JobChunk.objects.filter(job=job).order_by("index"))


def test_chunks_use_the_rule_based_recognizer_chosen_at_planning(
    django_capture_on_commit_callbacks: Any,
) -> None:
    job, in_order = _job(4, chunk_size=2)
    chunks = _fan_out(job, django_capture_on_commit_callbacks)
    assert [c.params for c in chunks] == [
        {"document_ids": in_order[:2], "use_active": False},
        {"document_ids": in_order[2:], "use_active": False},
    ]
    # Planned sizes count in the job's progress until the chunks report.
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total) == (0, 4)


def test_chunks_use_the_model_active_at_planning(
    django_capture_on_commit_callbacks: Any,
) -> None:
    job, _in_order = _job(4, chunk_size=2)
    active = ModelVersionFactory.create(
        project=job.project, kind=ModelKind.RECOGNIZER, is_active=True
    )
    chunks = _fan_out(job, django_capture_on_commit_callbacks)
    assert {c.params["model_version_id"] for c in chunks} == {active.pk}
