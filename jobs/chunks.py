"""Fan-out: a job split into chunks that run as a Celery group over every worker.

The parent Job row stays what users see and control. ``job_fan_out`` saves the
chunks and, once they are committed, sends them as one Celery group to the job's
queue, so every worker listening there takes its share (``worker_prefetch_multiplier``
is 1: an idle worker is never starved by a busy one holding messages).

Invariants:
- Locks are taken parent Job first, then chunk, everywhere, so chunks finishing at
  the same moment never deadlock.
- The chunk that finishes last merges the results and finishes the job in the same
  transaction as its own status: no crash can leave every chunk done and the job
  running.
- A chunk counts its own runs (``attempts``), worker deaths included; the job fails
  when one chunk fails or used up its attempts, and its other chunks are stopped.
- Progress is the sum of the chunks' progress, written under the job's row lock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from celery import current_app, group
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections, transaction
from django.db.models import Sum
from django.utils import timezone

from jobs.errors import TRACEBACK_HEAD, public_error
from jobs.models import FINISHED_STATUSES, Job, JobChunk, JobStatus
from jobs.services import (
    JobCancelledError,
    _append_log,
    _finish,
    _progress_alias,
    broker_unreachable,
    job_max_attempts,
    worker_died_message,
)

logger = logging.getLogger(__name__)

# (job, chunk results in chunk order) -> the job's result.
Merge = Callable[[Job, list[dict[str, Any]]], dict[str, Any]]


def chunks_send(*, job_id: int, chunk_ids: Sequence[int], task_name: str, queue: str) -> None:
    """Send the chunks as one Celery group; record their task ids (and the send time).

    Called after the chunks are committed: by ``job_fan_out``, and by the janitor for
    a chunk whose worker or message was lost."""
    try:
        signatures = [
            current_app.signature(task_name, args=[job_id, chunk_id], queue=queue)
            for chunk_id in chunk_ids
        ]
        sent = group(signatures).apply_async()
    except Exception as exc:
        broker_unreachable(job_id, exc)
        return
    now = timezone.now()
    for chunk_id, result in zip(chunk_ids, sent.results, strict=True):
        JobChunk.objects.filter(pk=chunk_id).update(celery_task_id=result.id, heartbeat_at=now)


@transaction.atomic
def job_fan_out(
    *,
    job_id: int,
    chunk_params: Sequence[dict[str, Any]],
    chunk_task_name: str,
    chunk_totals: Sequence[int] | None = None,
) -> int:
    """Split the running job into ``chunk_params`` chunks and queue them after commit.

    ``chunk_totals`` (one per chunk: the items it was planned with) is each chunk's
    progress total until it reports its own, so that the job's summed progress does
    not read complete while chunks still wait in the queue.

    Returns the number of chunks. A job that fanned out already (its task was
    delivered again after the split) keeps its chunks: lost ones are the janitor's.
    """
    job = Job.objects.select_for_update().get(pk=job_id)
    if job.status != JobStatus.RUNNING:
        return 0
    existing = job.chunks.count()
    if existing:
        return existing
    totals = list(chunk_totals) if chunk_totals is not None else [0] * len(chunk_params)
    chunks = [
        JobChunk(job=job, index=index, params=dict(params), progress_total=total)
        for index, (params, total) in enumerate(zip(chunk_params, totals, strict=True))
    ]
    for chunk in chunks:
        chunk.full_clean(exclude=["job"])
    JobChunk.objects.bulk_create(chunks)
    job.progress_done = 0
    job.progress_total = sum(totals)
    job.heartbeat_at = timezone.now()
    job.log_tail = _append_log(job.log_tail, f"split into {len(chunks)} chunks")
    job.save(update_fields=["progress_done", "progress_total", "heartbeat_at", "log_tail"])
    chunk_ids = [chunk.pk for chunk in chunks]
    queue = job.queue
    transaction.on_commit(
        lambda: chunks_send(
            job_id=job_id, chunk_ids=chunk_ids, task_name=chunk_task_name, queue=queue
        )
    )
    return len(chunks)


def chunk_and_job_fail(job: Job, chunk: JobChunk, error: str) -> None:
    """Fail a chunk and, when it is still running, its job (the other chunks stop).

    The caller holds both rows' locks (Job first) and passes a public error."""
    chunk.status = JobStatus.FAILED
    chunk.error = error[-4000:]
    chunk.finished_at = timezone.now()
    chunk.save(update_fields=["status", "error", "finished_at"])
    if job.status != JobStatus.RUNNING:
        return
    total = job.chunks.count()
    headline = error.strip().splitlines()[-1] if error.strip() else "failed"
    _finish(
        job.pk,
        JobStatus.FAILED,
        f"failed: chunk {chunk.index + 1} of {total}: {headline}",
        error=f"chunk {chunk.index + 1} of {total}: {error}"[-4000:],
    )


@transaction.atomic
def job_chunk_start(*, chunk_id: int, task_id: str = "", worker: str = "") -> JobChunk | None:
    """Claim a chunk for this task run, or return None if there is nothing to do.

    Nothing runs for a job that is no longer running (cancelled, failed) or for a
    finished chunk. The run is counted before the work; a chunk past its kind's
    attempts (its worker died each time) fails, and with it the job.
    """
    locked = _locked(chunk_id)
    if locked is None:
        return None
    job, chunk = locked
    if job.status != JobStatus.RUNNING or chunk.status in FINISHED_STATUSES:
        return None
    if chunk.status == JobStatus.RUNNING and task_id and chunk.celery_task_id not in ("", task_id):
        return None
    limit = job_max_attempts(job.kind)
    if chunk.attempts >= limit:
        chunk_and_job_fail(job, chunk, worker_died_message(chunk.attempts, limit))
        return None
    now = timezone.now()
    chunk.status = JobStatus.RUNNING
    chunk.started_at = chunk.started_at or now
    chunk.heartbeat_at = now
    chunk.attempts += 1
    chunk.worker = worker[:255]
    if task_id:
        chunk.celery_task_id = task_id
    chunk.save(
        update_fields=[
            "status",
            "started_at",
            "heartbeat_at",
            "attempts",
            "worker",
            "celery_task_id",
        ]
    )
    job.heartbeat_at = now
    job.save(update_fields=["heartbeat_at"])
    chunk.job = job  # the runner needs it: no second read
    return chunk


def job_chunk_progress(
    *, chunk_id: int, done: int | None, total: int | None, message: str = ""
) -> None:
    """Record a chunk's progress and sum it into its job.

    Raises :class:`JobCancelledError` when the job is no longer running (cancelled,
    or failed in another chunk): the chunk stops at its next report.
    """
    alias = _progress_alias()
    try:
        with transaction.atomic(using=alias):
            chunk = (
                JobChunk.objects.using(alias).only("job_id", "index").filter(pk=chunk_id).first()
            )
            if chunk is None:
                # The job was retried (its chunks planned afresh) or deleted: stop.
                raise JobCancelledError(chunk_id)
            job = (
                Job.objects.using(alias)
                .select_for_update()
                .only("status", "log_tail")
                .get(pk=chunk.job_id)
            )
            if job.status != JobStatus.RUNNING:
                raise JobCancelledError(job.pk)
            now = timezone.now()
            chunk_updates: dict[str, Any] = {"heartbeat_at": now}
            if done is not None and total is not None:
                chunk_updates["progress_total"] = total
                chunk_updates["progress_done"] = min(done, total) if total else done
            JobChunk.objects.using(alias).filter(pk=chunk_id).update(**chunk_updates)
            sums = (
                JobChunk.objects.using(alias)
                .filter(job_id=job.pk)
                .aggregate(done=Sum("progress_done"), total=Sum("progress_total"))
            )
            job_updates: dict[str, Any] = {
                "heartbeat_at": now,
                "progress_done": sums["done"] or 0,
                "progress_total": sums["total"] or 0,
            }
            if message:
                count = JobChunk.objects.using(alias).filter(job_id=job.pk).count()
                job_updates["log_tail"] = _append_log(
                    job.log_tail, f"chunk {chunk.index + 1}/{count}: {message}"
                )
            Job.objects.using(alias).filter(pk=job.pk).update(**job_updates)
    except OperationalError:
        if alias == DEFAULT_DB_ALIAS or connections[alias].vendor != "sqlite":
            raise
        # SQLite has one writer at a time: progress is dropped rather than blocking work.
        logger.debug("progress of chunk %s not recorded: database locked", chunk_id)


def job_chunk_heartbeat(*, chunk_id: int) -> None:
    """Say that the chunk's worker is alive; the job is alive while a chunk is."""
    alias = _progress_alias()
    now = timezone.now()
    running = JobChunk.objects.using(alias).filter(pk=chunk_id, status=JobStatus.RUNNING)
    job_id = running.values_list("job_id", flat=True).first()
    if job_id is None:
        return
    running.update(heartbeat_at=now)
    Job.objects.using(alias).filter(pk=job_id, status=JobStatus.RUNNING).update(heartbeat_at=now)


def _locked(chunk_id: int) -> tuple[Job, JobChunk] | None:
    chunk = JobChunk.objects.filter(pk=chunk_id).only("job_id").first()
    if chunk is None:
        return None
    job = Job.objects.select_for_update().get(pk=chunk.job_id)
    return job, JobChunk.objects.select_for_update().get(pk=chunk_id)


@transaction.atomic
def job_chunk_succeed(
    *,
    chunk_id: int,
    result: dict[str, Any],
    merge: Merge,
    describe: Callable[[dict[str, Any]], str] | None = None,
) -> Job | None:
    """Record the chunk's result; the last chunk merges all results and finishes the job."""
    locked = _locked(chunk_id)
    if locked is None:
        return None
    job, chunk = locked
    now = timezone.now()
    chunk.status = JobStatus.SUCCEEDED
    chunk.result = result
    chunk.finished_at = now
    if chunk.progress_total:
        chunk.progress_done = chunk.progress_total
    chunk.save(update_fields=["status", "result", "finished_at", "progress_done"])
    if job.status != JobStatus.RUNNING:
        if job.status == JobStatus.CANCELLED:
            job.log_tail = _append_log(
                job.log_tail,
                f"chunk {chunk.index + 1} finished before the cancellation took effect",
            )
            job.save(update_fields=["log_tail"])
        return job
    chunks = list(job.chunks.order_by("index"))
    if any(other.status != JobStatus.SUCCEEDED for other in chunks):
        return job
    merged = merge(job, [other.result for other in chunks])
    merged["chunks"] = len(chunks)
    merged["workers"] = len({other.worker for other in chunks if other.worker})
    message = describe(merged) if describe else "done"
    return _finish(job.pk, JobStatus.SUCCEEDED, message, result=merged)


@transaction.atomic
def job_chunk_fail(*, chunk_id: int, error: str) -> None:
    """Fail the chunk, and with it the job (its other chunks are stopped)."""
    if TRACEBACK_HEAD in error:
        logger.error("chunk %s failed\n%s", chunk_id, error)
    error = public_error(error)
    locked = _locked(chunk_id)
    if locked is None:
        return
    job, chunk = locked
    if chunk.status == JobStatus.SUCCEEDED:
        # A duplicate run (re-sent by the janitor while the first was still alive)
        # failed after the other one stored the chunk's result: the chunk is done.
        logger.warning("chunk %s: a duplicate run failed after the chunk succeeded", chunk_id)
        return
    chunk_and_job_fail(job, chunk, error)


def job_chunk_requeue(*, chunk_id: int) -> bool:
    """Put a running chunk back to queued before a retry; False if the job stopped."""
    with transaction.atomic():
        locked = _locked(chunk_id)
        if locked is None:
            return False
        job, chunk = locked
        if job.status != JobStatus.RUNNING or chunk.status != JobStatus.RUNNING:
            return False
        chunk.status = JobStatus.QUEUED
        chunk.save(update_fields=["status"])
        return True


def merge_sums(keys: Sequence[str]) -> Merge:
    """A merge that adds up ``keys`` over the chunks and takes every other entry from
    the first chunk (the settings and versions every chunk shares)."""

    def merge(job: Job, results: list[dict[str, Any]]) -> dict[str, Any]:
        merged: dict[str, Any] = dict(results[0]) if results else {}
        for key in keys:
            merged[key] = sum(int(result.get(key) or 0) for result in results)
        return merged

    return merge
