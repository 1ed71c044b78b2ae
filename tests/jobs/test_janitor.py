"""The janitor re-queues jobs whose worker vanished or whose broker message was lost."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from celery import current_app
from django.core.management import call_command
from django.utils import timezone

from jobs.janitor import broker_has_task, jobs_janitor
from jobs.models import Job, JobStatus
from jobs.services import job_start
from tests.factories import JobFactory
from workers.runner import Heartbeat, Reporter

MINUTES_AGO = timedelta(minutes=10)


@pytest.fixture
def broker() -> Iterator[None]:
    """A real broker: a Redis database of this test's own, empty before and after (the
    one of CELERY_BROKER_URL is shared with the other test process, which purges it)."""
    # Imported here, not at collection: other modules load it as a plugin.
    from tests.celery_worker import private_broker

    with private_broker():
        yield


def _stale(job: Job, status: str, **fields: Any) -> Job:
    Job.objects.filter(pk=job.pk).update(
        status=status, heartbeat_at=timezone.now() - MINUTES_AGO, **fields
    )
    job.refresh_from_db()
    return job


@pytest.mark.django_db
def test_a_running_job_without_heartbeat_is_queued_again(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job = _stale(JobFactory.create(), JobStatus.RUNNING, attempts=1, celery_task_id="dead")
    fresh = JobFactory.create()
    job_start(job_id=fresh.pk, task_id="alive")  # heartbeat now

    with django_capture_on_commit_callbacks(execute=True):
        report = jobs_janitor(stale_after=timedelta(minutes=3))

    assert (report.requeued, report.failed) == ([job.pk], [])
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert job.attempts == 1  # the next run counts itself
    assert "re-queued: no heartbeat for 180 s" in job.log_tail
    # A new message went to the broker (and the old one's id no longer matters).
    assert job.celery_task_id not in ("", "dead")
    assert broker_has_task(task_id=job.celery_task_id, queue="cpu") is True
    assert job.heartbeat_at is not None
    assert timezone.now() - job.heartbeat_at < timedelta(minutes=1)
    fresh.refresh_from_db()
    assert fresh.status == JobStatus.RUNNING


@pytest.mark.django_db
def test_a_silent_job_past_its_attempts_fails_with_a_clear_message(broker: None) -> None:
    job = _stale(JobFactory.create(), JobStatus.RUNNING, attempts=3)

    report = jobs_janitor(stale_after=timedelta(minutes=3))

    assert (report.requeued, report.failed) == ([], [job.pk])
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error.startswith("worker died 3 times while running this job")


@pytest.mark.django_db
def test_queued_jobs_are_sent_again_only_when_the_broker_lost_their_message(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    waiting = current_app.send_task("sanitizer.import_documents", args=[0], queue="cpu")
    behind = _stale(JobFactory.create(), JobStatus.QUEUED, celery_task_id=waiting.id)
    lost = _stale(JobFactory.create(), JobStatus.QUEUED, celery_task_id="flushed-by-redis")
    never_sent = JobFactory.create()  # its on_commit send never happened (heartbeat unset)
    Job.objects.filter(pk=never_sent.pk).update(created_at=timezone.now() - MINUTES_AGO)
    recent = JobFactory.create()

    with django_capture_on_commit_callbacks(execute=True):
        report = jobs_janitor(stale_after=timedelta(minutes=3))

    assert sorted(report.requeued) == sorted([lost.pk, never_sent.pk])
    for job in (lost, never_sent):
        job.refresh_from_db()
        assert "re-queued: its task was lost by the broker" in job.log_tail
        assert broker_has_task(task_id=job.celery_task_id, queue="cpu") is True
    behind.refresh_from_db()
    recent.refresh_from_db()
    assert (behind.log_tail, recent.log_tail) == ("", "")


@pytest.mark.django_db
def test_finished_jobs_are_left_alone(broker: None) -> None:
    for status in (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED):
        _stale(JobFactory.create(), status)
    assert jobs_janitor(stale_after=timedelta(minutes=3)).as_dict() == {
        "requeued": [],
        "failed": [],
        "requeued_chunks": [],
    }


@pytest.mark.django_db
def test_progress_reports_are_heartbeats() -> None:
    job = JobFactory.create()
    job_start(job_id=job.pk)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - MINUTES_AGO)
    Reporter(job.pk)(1, 10)
    job.refresh_from_db()
    assert job.heartbeat_at is not None
    assert timezone.now() - job.heartbeat_at < timedelta(minutes=1)


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_thread_beats_while_a_long_step_reports_nothing() -> None:
    job = JobFactory.create()
    job_start(job_id=job.pk)
    old = timezone.now() - MINUTES_AGO
    Job.objects.filter(pk=job.pk).update(heartbeat_at=old)
    with Heartbeat(job.pk, seconds=0.05):
        deadline = time.monotonic() + 10
        while Job.objects.get(pk=job.pk).heartbeat_at == old:
            assert time.monotonic() < deadline, "no heartbeat within 10 s"
            time.sleep(0.05)
    assert jobs_janitor(stale_after=timedelta(minutes=3)).requeued == []


@pytest.mark.django_db
def test_the_management_command_runs_the_janitor(broker: None) -> None:
    job = _stale(JobFactory.create(), JobStatus.RUNNING, attempts=3)
    out = StringIO()
    call_command("jobs_janitor", "--stale-seconds", "60", stdout=out)
    assert out.getvalue().strip() == f"re-queued 0 job(s) [], failed 1 job(s) [{job.pk}]"


def test_celery_beat_runs_the_janitor() -> None:
    from sanitizer_app.celery import app
    from workers.tasks import JANITOR_TASK_NAME

    entry = app.conf.beat_schedule["jobs-janitor"]
    assert entry["task"] == JANITOR_TASK_NAME
    assert JANITOR_TASK_NAME in app.tasks
