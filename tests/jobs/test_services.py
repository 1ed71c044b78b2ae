"""Job lifecycle on the real database (no worker: see tests/workers)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from jobs.models import Job, JobStatus
from jobs.services import (
    LOG_TAIL_CHARS,
    JobCancelledError,
    JobStateError,
    job_cancel,
    job_create,
    job_fail,
    job_log,
    job_progress,
    job_start,
    job_succeed,
)
from tests.factories import JobFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


class FakeBroker:
    """Stands in for the Celery app's send_task / control.revoke."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list[Any], str]] = []
        self.revoked: list[str] = []

    def send_task(self, name: str, args: list[Any], queue: str) -> Any:
        self.sent.append((name, list(args), queue))

        class Result:
            id = f"task-{len(self.sent)}"

        return Result()

    def revoke(self, task_id: str) -> None:
        self.revoked.append(task_id)


@pytest.fixture
def broker(monkeypatch) -> FakeBroker:
    from sanitizer_app.celery import app

    fake = FakeBroker()
    monkeypatch.setattr(app, "send_task", fake.send_task)
    monkeypatch.setattr(app.control, "revoke", fake.revoke)
    return fake


# --- creation and queueing ------------------------------------------------------------


def test_job_is_queued_only_after_the_transaction_commits(
    broker, django_capture_on_commit_callbacks
):
    project = ProjectFactory.create()
    user = UserFactory.create()
    with django_capture_on_commit_callbacks() as callbacks:
        job = job_create(
            kind="import", params={"path": "/x.json"}, project=project, created_by=user
        )
        assert broker.sent == []

    assert len(callbacks) == 1
    assert broker.sent == []
    callbacks[0]()
    assert broker.sent == [("sanitizer.import_documents", [job.pk], "cpu")]
    job.refresh_from_db()
    assert job.celery_task_id == "task-1"
    assert (job.status, job.created_by, job.queue) == (JobStatus.QUEUED, user, "cpu")


def test_a_rolled_back_job_is_never_queued(broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                job_create(kind="import", params={})
                raise RuntimeError("request failed after creating the job")
        except RuntimeError:
            pass
    assert callbacks == []
    assert broker.sent == []
    assert not Job.objects.exists()


def test_gpu_kinds_default_to_the_gpu_queue_and_the_queue_can_be_chosen(
    broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        train = job_create(kind="train_recognizer", params={})
        forced = job_create(kind="train_recognizer", params={}, queue="cpu")
    assert (train.queue, forced.queue) == ("gpu", "cpu")
    assert [s[2] for s in broker.sent] == ["gpu", "cpu"]


def test_unknown_job_kind_is_refused(broker):
    with pytest.raises(JobStateError, match="unknown job kind"):
        job_create(kind="mine_bitcoin", params={})
    assert not Job.objects.exists()


# --- starting -------------------------------------------------------------------------


def test_job_start_claims_a_queued_job():
    job = JobFactory.create()
    started = job_start(job_id=job.pk, task_id="t1")
    assert started is not None
    assert (started.status, started.attempts, started.celery_task_id) == (
        JobStatus.RUNNING,
        1,
        "t1",
    )
    assert started.started_at is not None


@pytest.mark.parametrize("status", [JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED])
def test_job_start_refuses_finished_and_cancelled_jobs(status):
    job = JobFactory.create(status=status, attempts=1, celery_task_id="t1")
    assert job_start(job_id=job.pk, task_id="t1") is None
    job.refresh_from_db()
    assert (job.status, job.attempts) == (status, 1)


def test_job_start_of_a_missing_job_does_nothing():
    assert job_start(job_id=123456) is None


def test_a_running_job_is_resumed_only_by_its_own_task():
    job = JobFactory.create()
    job_start(job_id=job.pk, task_id="t1")
    assert job_start(job_id=job.pk, task_id="someone-else") is None
    redelivered = job_start(job_id=job.pk, task_id="t1")
    assert redelivered is not None
    assert redelivered.attempts == 2


# --- progress and log -----------------------------------------------------------------


def test_progress_and_log_tail():
    job = JobFactory.create()
    job_start(job_id=job.pk, task_id="t1")
    job_progress(job_id=job.pk, done=10, total=100, message="reading")
    job_progress(job_id=job.pk, done=150, total=100)
    job_log(job_id=job.pk, message="half way")
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total) == (100, 100)
    lines = job.log_tail.splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == ["reading", "half way"]
    assert all(len(line.split(" ", 1)[0]) == len("12:00:00") for line in lines)


def test_log_tail_keeps_only_the_end():
    job = JobFactory.create()
    for i in range(400):
        job_log(job_id=job.pk, message=f"line {i:04d} " + "x" * 40)
    job.refresh_from_db()
    assert len(job.log_tail) <= LOG_TAIL_CHARS
    assert job.log_tail.rstrip().endswith("line 0399 " + "x" * 40)
    assert "line 0000" not in job.log_tail


def test_success_sets_result_and_completes_progress():
    job = JobFactory.create()
    job_start(job_id=job.pk)
    job_progress(job_id=job.pk, done=40, total=100)
    done = job_succeed(job_id=job.pk, result={"documents": 3})
    assert done.status == JobStatus.SUCCEEDED
    assert done.result == {"documents": 3}
    assert (done.progress_done, done.progress_total) == (100, 100)
    assert done.finished_at is not None
    assert done.log_tail.endswith("done\n")


def test_failure_keeps_the_error_and_shows_the_exception_in_the_log():
    job = JobFactory.create()
    job_start(job_id=job.pk)
    failed = job_fail(job_id=job.pk, error="document 'd1', mention 'm1': bad")
    assert failed.status == JobStatus.FAILED
    assert failed.error == "document 'd1', mention 'm1': bad"
    assert "failed: document 'd1', mention 'm1': bad" in failed.log_tail

    other = JobFactory.create()
    job_start(job_id=other.pk)
    trace = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: no documents\n'
    failed = job_fail(job_id=other.pk, error=trace)
    # Users see the exception, not the server's files (the log keeps the traceback).
    assert failed.error == "ValueError: no documents"
    # The log line names the exception, not the traceback's header.
    assert "failed: ValueError: no documents" in failed.log_tail
    assert "Traceback" not in failed.log_tail


def test_a_finished_job_is_not_finished_again():
    job = JobFactory.create()
    job_start(job_id=job.pk)
    job_succeed(job_id=job.pk, result={"n": 1})
    again = job_fail(job_id=job.pk, error="late failure")
    assert again.status == JobStatus.SUCCEEDED
    assert again.result == {"n": 1}
    assert again.error == ""


# --- cancelling -----------------------------------------------------------------------


def test_cancel_a_queued_job_revokes_its_task(broker, django_capture_on_commit_callbacks):
    job = JobFactory.create(celery_task_id="t1")
    user = UserFactory.create(username="maria")
    with transaction.atomic():
        job_cancel(job=job, user=user)
        # Revoked only once the cancellation is committed.
        assert broker.revoked == []
    with django_capture_on_commit_callbacks(execute=True):
        cancelled = job_cancel(job=JobFactory.create(celery_task_id="t1"), user=user)
    assert cancelled.status == JobStatus.CANCELLED
    assert cancelled.finished_at is not None
    assert "cancelled by maria" in cancelled.log_tail
    assert broker.revoked == ["t1"]
    assert job_start(job_id=job.pk, task_id="t1") is None


def test_a_running_job_stops_at_its_next_progress_report(broker):
    job = JobFactory.create()
    job_start(job_id=job.pk, task_id="t1")
    job_cancel(job=Job.objects.get(pk=job.pk))
    with pytest.raises(JobCancelledError):
        job_progress(job_id=job.pk, done=1, total=2)
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    assert job.progress_done == 0


@pytest.mark.parametrize("status", [JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED])
def test_a_finished_job_cannot_be_cancelled(broker, status):
    job = JobFactory.create(status=status)
    with pytest.raises(JobStateError, match=f"already {status}"):
        job_cancel(job=job)
    assert broker.revoked == []
    job.refresh_from_db()
    assert job.status == status


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("train_recognizer", {"name": "../../etc/x"}, "slug"),
        ("train_recognizer", {"base_model": "/some/where/else"}, "ALLOWED_BASE_MODELS"),
        ("train_recognizer", {"epochs": "3"}, "epochs must be an integer"),
        ("preannotate", {"model_version_id": "abc"}, "must be an integer id"),
        ("distant_label", {"knowledge_base_id": "1", "k": 5}, "must be an integer id"),
    ],
)
def test_job_parameters_are_checked_before_anything_is_queued(kind, params, message):
    project = ProjectFactory.create()
    with pytest.raises(JobStateError, match=message):
        job_create(kind=kind, params=params, project=project)
    assert not Job.objects.exists()
