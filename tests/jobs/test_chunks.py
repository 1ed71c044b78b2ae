"""Fan-out bookkeeping on the real database and broker (no worker: see tests/workers)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from celery import current_app
from django.utils import timezone

from jobs import janitor
from jobs.chunks import (
    job_chunk_fail,
    job_chunk_heartbeat,
    job_chunk_progress,
    job_chunk_start,
    job_chunk_succeed,
    job_fan_out,
    merge_sums,
)
from jobs.janitor import broker_has_task, jobs_janitor
from jobs.models import Job, JobChunk, JobStatus
from jobs.services import JobCancelledError, job_cancel, job_retry, job_start
from tests.factories import JobFactory, ProjectFactory

pytestmark = pytest.mark.django_db

CHUNK_TASK = "sanitizer.preannotate.chunk"
MERGE = merge_sums(("documents", "spans"))


@pytest.fixture
def broker() -> Iterator[None]:
    """A real broker: a Redis database of this test's own, empty before and after (the
    one of CELERY_BROKER_URL is shared with the other test process, which purges it)."""
    # Imported here, not at collection: other modules load it as a plugin.
    from tests.celery_worker import private_broker

    with private_broker():
        yield


def _fanned(
    commit: Any, chunks: int = 3, kind: str = "preannotate", queue: str = "gpu"
) -> tuple[Job, list[JobChunk]]:
    job = JobFactory.create(kind=kind, queue=queue, project=ProjectFactory.create())
    job_start(job_id=job.pk, task_id="plan")
    with commit(execute=True):
        count = job_fan_out(
            job_id=job.pk,
            chunk_params=[{"document_ids": [i]} for i in range(chunks)],
            chunk_task_name=CHUNK_TASK,
        )
    assert count == chunks
    return Job.objects.get(pk=job.pk), list(JobChunk.objects.filter(job=job).order_by("index"))


def test_fan_out_sends_one_task_per_chunk_as_a_group(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, chunks = _fanned(django_capture_on_commit_callbacks)
    assert [c.params for c in chunks] == [
        {"document_ids": [0]},
        {"document_ids": [1]},
        {"document_ids": [2]},
    ]
    assert all(c.status == JobStatus.QUEUED for c in chunks)
    assert len({c.celery_task_id for c in chunks}) == 3
    assert all(broker_has_task(task_id=c.celery_task_id, queue="gpu") for c in chunks)
    assert "split into 3 chunks" in job.log_tail
    # The planning task delivered again finds its chunks: nothing is split twice.
    again = job_fan_out(job_id=job.pk, chunk_params=[{}, {}], chunk_task_name=CHUNK_TASK)
    assert (again, JobChunk.objects.filter(job=job).count()) == (3, 3)


def test_progress_of_the_chunks_is_summed_into_the_job(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, (first, second, _third) = _fanned(django_capture_on_commit_callbacks)
    for chunk in (first, second):
        assert job_chunk_start(chunk_id=chunk.pk, task_id=chunk.celery_task_id, worker="w1")
    job_chunk_progress(chunk_id=first.pk, done=3, total=5, message="labelling")
    job_chunk_progress(chunk_id=second.pk, done=2, total=4)
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total) == (5, 9)
    assert "chunk 1/3: labelling" in job.log_tail
    job_chunk_progress(chunk_id=first.pk, done=5, total=5)
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total) == (7, 9)
    # A heartbeat of any chunk keeps the job alive too.
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    job_chunk_heartbeat(chunk_id=second.pk)
    job.refresh_from_db()
    assert job.heartbeat_at is not None
    assert timezone.now() - job.heartbeat_at < timedelta(minutes=1)


def test_the_last_chunk_merges_the_results_and_finishes_the_job(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, chunks = _fanned(django_capture_on_commit_callbacks)
    for number, chunk in enumerate(chunks):
        job_chunk_start(chunk_id=chunk.pk, task_id=chunk.celery_task_id, worker=f"w{number % 2}")
    results = [
        {"documents": 2, "spans": 7, "recognizer": "r"},
        {"documents": 1, "spans": 0, "recognizer": "r"},
        {"documents": 3, "spans": 4, "recognizer": "r"},
    ]
    # Out of order: only when every chunk is done does the job finish.
    for chunk, result in zip([chunks[2], chunks[0]], [results[2], results[0]], strict=True):
        job_chunk_succeed(chunk_id=chunk.pk, result=result, merge=MERGE)
        assert Job.objects.get(pk=job.pk).status == JobStatus.RUNNING
    finished = job_chunk_succeed(
        chunk_id=chunks[1].pk,
        result=results[1],
        merge=MERGE,
        describe=lambda r: f"{r['documents']} documents",
    )
    assert finished is not None and finished.status == JobStatus.SUCCEEDED
    assert finished.result == {
        "documents": 6, "spans": 11, "recognizer": "r", "chunks": 3, "workers": 2,
    }  # fmt: skip
    assert finished.log_tail.rstrip().endswith("6 documents")


def test_a_failing_chunk_fails_the_job_and_stops_the_others(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, (first, second, third) = _fanned(django_capture_on_commit_callbacks)
    job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id)
    job_chunk_start(chunk_id=second.pk, task_id=second.celery_task_id)
    job_chunk_fail(chunk_id=second.pk, error="bad document 7")
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error == "chunk 2 of 3: bad document 7"
    statuses = dict(JobChunk.objects.filter(job=job).values_list("index", "status"))
    assert statuses == {0: JobStatus.CANCELLED, 1: JobStatus.FAILED, 2: JobStatus.CANCELLED}
    # The running chunk stops at its next report; the queued one never starts.
    with pytest.raises(JobCancelledError):
        job_chunk_progress(chunk_id=first.pk, done=1, total=2)
    assert job_chunk_start(chunk_id=third.pk, task_id=third.celery_task_id) is None


def test_cancelling_a_fanned_out_job_reaches_every_chunk(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, (first, second, _third) = _fanned(django_capture_on_commit_callbacks)
    job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id)
    with django_capture_on_commit_callbacks(execute=True):
        job_cancel(job=job)
    assert set(JobChunk.objects.filter(job=job).values_list("status", flat=True)) == {
        JobStatus.CANCELLED
    }
    with pytest.raises(JobCancelledError):
        job_chunk_progress(chunk_id=first.pk, done=1, total=2)
    assert job_chunk_start(chunk_id=second.pk, task_id=second.celery_task_id) is None
    # A chunk that committed its work just before the cancellation says so.
    job_chunk_succeed(chunk_id=first.pk, result={"documents": 1}, merge=MERGE)
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    assert "chunk 1 finished before the cancellation took effect" in job.log_tail


def test_a_chunk_whose_worker_died_too_often_fails_the_job(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, (first, *_rest) = _fanned(django_capture_on_commit_callbacks)
    for _attempt in range(3):
        assert job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id) is not None
    assert job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id) is None
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error == (
        "chunk 1 of 3: worker died 3 times while running this job (at most 3 attempts); "
        "not trying again"
    )


def test_the_janitor_requeues_a_lost_chunk_not_the_job(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, (first, second, third) = _fanned(django_capture_on_commit_callbacks)
    job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id)
    job_chunk_start(chunk_id=second.pk, task_id=second.celery_task_id)
    long_ago = timezone.now() - timedelta(minutes=10)
    # The first chunk's worker vanished; the third chunk's message was flushed away.
    JobChunk.objects.filter(pk=first.pk).update(heartbeat_at=long_ago)
    JobChunk.objects.filter(pk=third.pk).update(heartbeat_at=long_ago, created_at=long_ago)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=long_ago)
    current_app.control.purge()
    with django_capture_on_commit_callbacks(execute=True):
        report = jobs_janitor(stale_after=timedelta(minutes=3))
    assert (report.requeued, report.failed) == ([], [])
    assert sorted(report.requeued_chunks) == [first.pk, third.pk]
    first.refresh_from_db()
    third.refresh_from_db()
    assert first.status == third.status == JobStatus.QUEUED
    assert broker_has_task(task_id=first.celery_task_id, queue="gpu")
    assert broker_has_task(task_id=third.celery_task_id, queue="gpu")
    assert Job.objects.get(pk=job.pk).status == JobStatus.RUNNING
    # The live chunk was left alone.
    assert JobChunk.objects.get(pk=second.pk).status == JobStatus.RUNNING


def test_retrying_a_failed_fanned_out_job_plans_it_afresh(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, (first, *_rest) = _fanned(django_capture_on_commit_callbacks)
    job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id)
    job_chunk_fail(chunk_id=first.pk, error="boom")
    job.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        job_retry(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert not JobChunk.objects.filter(job=job).exists()


def test_the_planned_chunk_sizes_count_in_the_job_progress_until_each_reports(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job = JobFactory.create(kind="preannotate", queue="gpu", project=ProjectFactory.create())
    job_start(job_id=job.pk, task_id="plan")
    with django_capture_on_commit_callbacks(execute=True):
        job_fan_out(
            job_id=job.pk,
            chunk_params=[
                {"document_ids": [1, 2]},
                {"document_ids": [3, 4]},
                {"document_ids": [5]},
            ],
            chunk_task_name=CHUNK_TASK,
            chunk_totals=[2, 2, 1],
        )
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total) == (0, 5)
    first = JobChunk.objects.get(job=job, index=0)
    assert job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id)
    job_chunk_progress(chunk_id=first.pk, done=2, total=2)
    job.refresh_from_db()
    # Not complete: two chunks still wait in the queue.
    assert (job.progress_done, job.progress_total) == (2, 5)


def test_the_janitor_reads_the_queue_once_and_leaves_waiting_chunks_alone(
    broker: None, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    job, chunks = _fanned(django_capture_on_commit_callbacks)
    long_ago = timezone.now() - timedelta(minutes=10)
    JobChunk.objects.filter(job=job).update(heartbeat_at=long_ago)
    reads: list[str] = []
    real = janitor.broker_messages

    def counted(*, queue: str) -> list[bytes] | None:
        reads.append(queue)
        return real(queue=queue)

    monkeypatch.setattr(janitor, "broker_messages", counted)
    # Every chunk's message is still waiting in the queue: nothing is sent twice.
    report = jobs_janitor(stale_after=timedelta(minutes=3))
    assert report.requeued_chunks == []
    assert reads == ["gpu"]
    current_app.control.purge()
    with django_capture_on_commit_callbacks(execute=True):
        report = jobs_janitor(stale_after=timedelta(minutes=3))
    assert sorted(report.requeued_chunks) == sorted(c.pk for c in chunks)


def test_a_duplicate_run_failing_after_the_chunk_succeeded_does_not_fail_the_job(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, (first, second, _third) = _fanned(django_capture_on_commit_callbacks)
    job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id)
    job_chunk_succeed(chunk_id=first.pk, result={"documents": 1}, merge=MERGE)
    job_chunk_fail(chunk_id=first.pk, error="IntegrityError: duplicate")
    assert JobChunk.objects.get(pk=first.pk).status == JobStatus.SUCCEEDED
    assert Job.objects.get(pk=job.pk).status == JobStatus.RUNNING
    # A real failure of another chunk still fails the job.
    job_chunk_start(chunk_id=second.pk, task_id=second.celery_task_id)
    job_chunk_fail(chunk_id=second.pk, error="ValueError: bad input")
    assert Job.objects.get(pk=job.pk).status == JobStatus.FAILED


def test_a_chunk_of_a_retried_job_stops_at_its_next_report(
    broker: None, django_capture_on_commit_callbacks: Any
) -> None:
    job, (first, second, _third) = _fanned(django_capture_on_commit_callbacks)
    job_chunk_start(chunk_id=first.pk, task_id=first.celery_task_id)
    job_chunk_start(chunk_id=second.pk, task_id=second.celery_task_id)
    job_chunk_fail(chunk_id=second.pk, error="boom")
    with django_capture_on_commit_callbacks(execute=True):
        job_retry(job=Job.objects.get(pk=job.pk))
    # The first chunk's run is still going; its row went with the retry.
    with pytest.raises(JobCancelledError):
        job_chunk_progress(chunk_id=first.pk, done=1, total=2)
