"""Bounded attempts: every run is counted in the Job row before its work starts."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.db import OperationalError

from jobs.models import Job, JobStatus
from jobs.services import job_start
from tests.factories import JobFactory
from workers.runner import Reporter, run_job
from workers.tasks import TASKS


def _task(task_id: str = "t1", retries: int = 0, max_retries: int = 3) -> Any:
    return SimpleNamespace(
        request=SimpleNamespace(id=task_id, retries=retries), max_retries=max_retries
    )


@pytest.mark.django_db
def test_the_attempt_is_recorded_before_the_work_starts() -> None:
    job = JobFactory.create()
    seen: list[tuple[int, str, bool]] = []

    def body(running: Job, reporter: Reporter) -> dict[str, Any]:
        row = Job.objects.get(pk=running.pk)
        seen.append((row.attempts, row.status, row.heartbeat_at is not None))
        return {}

    run_job(_task(), job.pk, body)
    assert seen == [(1, JobStatus.RUNNING, True)]


@pytest.mark.django_db
def test_a_job_whose_worker_died_three_times_fails_instead_of_running_again() -> None:
    job = JobFactory.create()  # an import: at most 3 attempts
    for _ in range(3):
        # A redelivery of the same message after the worker child was killed mid-run:
        # the run was claimed and counted, then nothing recorded an outcome.
        assert job_start(job_id=job.pk, task_id="t1") is not None
    ran: list[int] = []

    def body(running: Job, reporter: Reporter) -> dict[str, Any]:
        ran.append(running.pk)
        return {}

    run_job(_task("t1"), job.pk, body)

    assert ran == []
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.attempts == 3
    assert job.error.startswith("worker died 3 times while running this job")
    assert job.log_tail.rstrip().endswith("not trying again")
    assert job.finished_at is not None


@pytest.mark.django_db
def test_redeliveries_of_the_celery_task_are_bounded(tab_sample_path: Any) -> None:
    job = JobFactory.create(params={"path": str(tab_sample_path), "format": "tab"})
    Job.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING, attempts=3)

    TASKS["import"].apply(args=[job.pk])

    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.FAILED, 3)
    assert "worker died 3 times" in job.error
    assert job.result == {}


@pytest.mark.django_db
def test_transient_retries_count_against_the_same_bound() -> None:
    job = JobFactory.create()
    Job.objects.filter(pk=job.pk).update(attempts=2)

    def body(running: Job, reporter: Reporter) -> dict[str, Any]:
        raise OperationalError("server closed the connection unexpectedly")

    # Celery would allow more retries, but this is the job's third and last attempt.
    run_job(_task(retries=0, max_retries=3), job.pk, body)

    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.FAILED, 3)
    assert "server closed the connection" in job.error


def test_tasks_acknowledge_late_and_requeue_when_the_worker_is_lost() -> None:
    for task in TASKS.values():
        assert task.acks_late is True
        assert task.reject_on_worker_lost is True
