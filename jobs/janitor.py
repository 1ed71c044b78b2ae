"""The janitor: jobs whose worker vanished or whose broker message was lost run again.

A worker killed as a whole (not only its child) leaves its job "running" and its
message unacknowledged until the broker's visibility timeout, hours later; a broker
that lost its data (a Redis flush or restart without persistence) leaves queued jobs
that no worker will ever see. The Job row knows better: a running job writes a
heartbeat (``workers.runner``), a queued one records when its task was sent. Past
``JOBS_STALE_SECONDS`` without a sign of life the janitor sends the task again,
within the kind's attempt bound (``job_start`` counts every run). A late duplicate
message is harmless: ``job_start`` claims a job once, under a row lock.

Run by Celery beat (``sanitizer_app.celery``) and by ``manage.py jobs_janitor``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from jobs.chunks import chunk_and_job_fail, chunks_send
from jobs.kinds import job_kind_get
from jobs.models import Job, JobChunk, JobStatus
from jobs.services import (
    _append_log,
    _finish,
    job_fail_if_exhausted,
    job_max_attempts,
    job_requeue,
    worker_died_message,
)

logger = logging.getLogger(__name__)


@dataclass
class JanitorReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    requeued_chunks: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[int]]:
        return {
            "requeued": self.requeued,
            "failed": self.failed,
            "requeued_chunks": self.requeued_chunks,
        }


def broker_messages(*, queue: str) -> list[bytes] | None:
    """The raw messages the broker holds for ``queue`` (waiting, any priority) and
    every unacknowledged one; None when the transport cannot be inspected (only Redis
    can) or is unreachable."""
    try:
        with current_app.connection_for_read() as conn:
            channel = conn.default_channel
            client = getattr(channel, "client", None)
            if client is None or not hasattr(client, "lrange"):
                return None
            keys = {queue} | {channel._q_for_pri(queue, pri) for pri in channel.priority_steps}
            messages: list[bytes] = []
            for key in keys:
                messages += client.lrange(key, 0, -1)
            return messages + list(client.hvals(channel.unacked_key))
    except Exception:
        logger.warning("could not inspect the broker queue %s", queue, exc_info=True)
        return None


def broker_has_task(
    *, task_id: str, queue: str, messages: list[bytes] | None = None
) -> bool | None:
    """Whether the broker still holds the task's message (waiting or unacknowledged).

    None when the transport cannot be inspected (only Redis can) or is unreachable:
    then a queued job is left alone rather than sent twice on a guess. ``messages``
    (from :func:`broker_messages`) spares a caller checking many tasks of one queue
    a read of the whole queue per task.
    """
    if not task_id:
        return False
    if messages is None:
        messages = broker_messages(queue=queue)
        if messages is None:
            return None
    needle = task_id.encode()
    return any(needle in raw for raw in messages)


def _silent_since(cutoff: datetime, started: str) -> Q:
    # A row from before heartbeats existed falls back to when it started or was created.
    return Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, **{f"{started}__lt": cutoff})


def _requeue(job_id: int, cutoff: datetime, why: str, report: JanitorReport) -> None:
    with transaction.atomic():
        job = (
            Job.objects.select_for_update()
            .filter(pk=job_id, status__in=(JobStatus.QUEUED, JobStatus.RUNNING))
            .filter(_silent_since(cutoff, "created_at"))
            .first()
        )
        if job is None:
            return  # it moved on meanwhile
        spec = job_kind_get(job.kind)
        if spec is None:
            message = f"the job kind {job.kind!r} is no longer registered"
            _finish(job.pk, JobStatus.FAILED, f"failed: {message}", error=message)
            report.failed.append(job.pk)
            return
        if job_fail_if_exhausted(job=job):
            report.failed.append(job.pk)
            return
        job_requeue(job=job, task_name=spec.task_name, why=why)
        report.requeued.append(job.pk)


def _requeue_chunk(chunk_id: int, cutoff: datetime, why: str, report: JanitorReport) -> None:
    """The chunk-level twin of ``_requeue``: one lost chunk runs again, the others go on."""
    with transaction.atomic():
        job_id = JobChunk.objects.filter(pk=chunk_id).values_list("job_id", flat=True).first()
        if job_id is None:
            return
        job = Job.objects.select_for_update().filter(pk=job_id, status=JobStatus.RUNNING).first()
        chunk = (
            JobChunk.objects.select_for_update()
            .filter(pk=chunk_id, status__in=(JobStatus.QUEUED, JobStatus.RUNNING))
            .filter(_silent_since(cutoff, "created_at"))
            .first()
        )
        if job is None or chunk is None:
            return  # it moved on meanwhile
        spec = job_kind_get(job.kind)
        limit = job_max_attempts(job.kind)
        if spec is None or not spec.chunk_task_name or chunk.attempts >= limit:
            message = (
                worker_died_message(chunk.attempts, limit)
                if spec is not None and spec.chunk_task_name
                else f"the job kind {job.kind!r} no longer fans out"
            )
            chunk_and_job_fail(job, chunk, message)
            report.failed.append(job.pk)
            return
        chunk.status = JobStatus.QUEUED
        chunk.heartbeat_at = timezone.now()
        chunk.save(update_fields=["status", "heartbeat_at"])
        total = job.chunks.count()
        job.log_tail = _append_log(
            job.log_tail, f"chunk {chunk.index + 1}/{total} re-queued: {why}"
        )
        job.save(update_fields=["log_tail"])
        task_name, queue = spec.chunk_task_name, job.queue
        transaction.on_commit(
            lambda: chunks_send(
                job_id=job_id, chunk_ids=[chunk_id], task_name=task_name, queue=queue
            )
        )
        report.requeued_chunks.append(chunk_id)


class BrokerSnapshots:
    """Each queue's messages, read from the broker once per janitor run: a backlog of
    many queued jobs or chunks would otherwise read the whole queue once each."""

    def __init__(self) -> None:
        self._messages: dict[str, list[bytes] | None] = {}

    def lost(self, *, task_id: str, queue: str) -> bool:
        """Whether the broker surely lost the task (never sent, or no longer held);
        False when the broker cannot be inspected: leave it rather than guess."""
        if not task_id:
            return True
        if queue not in self._messages:
            self._messages[queue] = broker_messages(queue=queue)
        messages = self._messages[queue]
        return messages is not None and not broker_has_task(
            task_id=task_id, queue=queue, messages=messages
        )


def _chunks_janitor(
    cutoff: datetime, stale_after: timedelta, report: JanitorReport, snapshots: BrokerSnapshots
) -> None:
    live = JobChunk.objects.filter(job__status=JobStatus.RUNNING)
    running = live.filter(status=JobStatus.RUNNING).filter(_silent_since(cutoff, "created_at"))
    seconds = int(stale_after.total_seconds())
    for chunk_id in running.values_list("pk", flat=True):
        _requeue_chunk(
            chunk_id, cutoff, f"no heartbeat for {seconds} s (the worker vanished)", report
        )
    queued = live.filter(status=JobStatus.QUEUED).filter(_silent_since(cutoff, "created_at"))
    for chunk_id, task_id, queue in queued.values_list("pk", "celery_task_id", "job__queue"):
        if snapshots.lost(task_id=task_id, queue=queue):
            _requeue_chunk(chunk_id, cutoff, "its task was lost by the broker", report)


def jobs_janitor(*, stale_after: timedelta | None = None) -> JanitorReport:
    """Re-queue (or, past the attempt bound, fail) running jobs without a heartbeat
    and queued jobs whose broker message is gone, both silent for ``stale_after``."""
    if stale_after is None:
        stale_after = timedelta(seconds=settings.JOBS_STALE_SECONDS)
    cutoff = timezone.now() - stale_after
    report = JanitorReport()
    # A job that fanned out lives through its chunks (``_chunks_janitor``).
    fanned_out = Exists(JobChunk.objects.filter(job=OuterRef("pk")))
    running = (
        Job.objects.filter(status=JobStatus.RUNNING)
        .filter(_silent_since(cutoff, "started_at"))
        .exclude(fanned_out)
    )
    for job_id in running.values_list("pk", flat=True):
        seconds = int(stale_after.total_seconds())
        _requeue(job_id, cutoff, f"no heartbeat for {seconds} s (the worker vanished)", report)
    queued = Job.objects.filter(status=JobStatus.QUEUED).filter(_silent_since(cutoff, "created_at"))
    snapshots = BrokerSnapshots()
    for job_id, task_id, queue in queued.values_list("pk", "celery_task_id", "queue"):
        if snapshots.lost(task_id=task_id, queue=queue):
            _requeue(job_id, cutoff, "its task was lost by the broker", report)
    _chunks_janitor(cutoff, stale_after, report, snapshots)
    return report
