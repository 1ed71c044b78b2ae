"""An import's upload stays until the job succeeds, and goes on cancel or final failure."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import OperationalError

from annotation.models import Document
from jobs.models import Job, JobStatus
from jobs.services import job_cancel
from tests.factories import JobFactory, ProjectFactory
from workers import bodies
from workers.runner import run_job
from workers.tasks import TASKS


class RetryRequested(Exception):
    pass


def _retrying_task() -> Any:
    def retry(exc: BaseException, countdown: int) -> BaseException:
        return RetryRequested(countdown)

    return SimpleNamespace(request=SimpleNamespace(id="t1", retries=0), max_retries=3, retry=retry)


@pytest.fixture
def upload(tab_sample_path: Path, tmp_path: Path) -> Path:
    path = tmp_path / "upload.json"
    path.write_bytes(tab_sample_path.read_bytes())
    return path


def _import_job(path: Path) -> Job:
    return JobFactory.create(
        kind="import",
        project=ProjectFactory.create(),
        params={"path": str(path), "format": "tab", "delete_after": True},
    )


# The runner closes the broken connection before a retry: real transactions needed.
@pytest.mark.django_db(transaction=True)
def test_an_import_retried_after_a_database_error_still_finds_its_upload(
    upload: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _import_job(upload)
    real_import = bodies.document_import

    def lost_connection(**kwargs: Any) -> Any:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(bodies, "document_import", lost_connection)
    with pytest.raises(RetryRequested):
        run_job(_retrying_task(), job.pk, bodies.import_documents)

    assert upload.exists()
    assert Job.objects.get(pk=job.pk).status == JobStatus.QUEUED

    monkeypatch.setattr(bodies, "document_import", real_import)
    TASKS["import"].apply(args=[job.pk])

    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.SUCCEEDED, 2), job.error
    assert Document.objects.filter(project=job.project).count() == 3
    assert not upload.exists()  # the job succeeded: the personal data goes


@pytest.mark.django_db
def test_cancelling_an_import_removes_its_upload(
    upload: Path, django_capture_on_commit_callbacks: Any
) -> None:
    job = _import_job(upload)
    with django_capture_on_commit_callbacks(execute=True):
        job_cancel(job=job)
    assert not upload.exists()


@pytest.mark.django_db
def test_an_import_that_died_too_often_removes_its_upload(
    upload: Path, django_capture_on_commit_callbacks: Any
) -> None:
    job = _import_job(upload)
    Job.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING, attempts=3)
    with django_capture_on_commit_callbacks(execute=True):
        TASKS["import"].apply(args=[job.pk])
    assert Job.objects.get(pk=job.pk).status == JobStatus.FAILED
    assert not upload.exists()


@pytest.mark.django_db
def test_a_server_import_without_delete_after_keeps_its_file(
    upload: Path, django_capture_on_commit_callbacks: Any
) -> None:
    job = JobFactory.create(params={"path": str(upload), "format": "tab"})
    with django_capture_on_commit_callbacks(execute=True):
        job_cancel(job=job)
    assert upload.exists()


@pytest.mark.django_db
def test_deleting_an_import_job_removes_its_upload(
    upload: Path, django_capture_on_commit_callbacks: Any
) -> None:
    from jobs.services import job_delete

    job = _import_job(upload)
    with django_capture_on_commit_callbacks(execute=True):
        job_delete(job=job)
    assert not Job.objects.filter(pk=job.pk).exists()
    assert not upload.exists()


@pytest.mark.django_db
def test_the_django_admin_deletes_jobs_through_the_service(
    upload: Path, client: Any, admin_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    job = _import_job(upload)
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/admin/jobs/job/{job.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Job.objects.filter(pk=job.pk).exists()
    assert not upload.exists()
