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
from django.db.models import Q
from django.utils import timezone

from jobs.kinds import job_kind_get
from jobs.models import Job, JobStatus
from jobs.services import (
    _append_log,
    _enqueue,
    _finish,
    job_max_attempts,
    worker_died_message,
)

logger = logging.getLogger(__name__)


@dataclass
class JanitorReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[int]]:
        return {"requeued": self.requeued, "failed": self.failed}


def broker_has_task(*, task_id: str, queue: str) -> bool | None:
    """Whether the broker still holds the task's message (waiting or unacknowledged).

    None when the transport cannot be inspected (only Redis can) or is unreachable:
    then a queued job is left alone rather than sent twice on a guess.
    """
    if not task_id:
        return False
    try:
        with current_app.connection_for_read() as conn:
            channel = conn.default_channel
            client = getattr(channel, "client", None)
            if client is None or not hasattr(client, "lrange"):
                return None
            needle = task_id.encode()
            keys = {queue} | {channel._q_for_pri(queue, pri) for pri in channel.priority_steps}
            for key in keys:
                if any(needle in raw for raw in client.lrange(key, 0, -1)):
                    return True
            return any(needle in raw for raw in client.hvals(channel.unacked_key))
    except Exception:
        logger.warning("could not inspect the broker for task %s", task_id, exc_info=True)
        return None


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
        limit = job_max_attempts(job.kind)
        if spec is None or job.attempts >= limit:
            message = (
                worker_died_message(job.attempts, limit)
                if spec is not None
                else f"the job kind {job.kind!r} is no longer registered"
            )
            _finish(job.pk, JobStatus.FAILED, f"failed: {message}", error=message)
            report.failed.append(job.pk)
            return
        job.status = JobStatus.QUEUED
        job.heartbeat_at = timezone.now()
        job.log_tail = _append_log(job.log_tail, f"re-queued: {why}")
        job.save(update_fields=["status", "heartbeat_at", "log_tail"])
        task_name, queue = spec.task_name, job.queue
        transaction.on_commit(lambda: _enqueue(job_id, task_name, queue))
        report.requeued.append(job.pk)


def jobs_janitor(*, stale_after: timedelta | None = None) -> JanitorReport:
    """Re-queue (or, past the attempt bound, fail) running jobs without a heartbeat
    and queued jobs whose broker message is gone, both silent for ``stale_after``."""
    if stale_after is None:
        stale_after = timedelta(seconds=settings.JOBS_STALE_SECONDS)
    cutoff = timezone.now() - stale_after
    report = JanitorReport()
    running = Job.objects.filter(status=JobStatus.RUNNING).filter(
        _silent_since(cutoff, "started_at")
    )
    for job_id in running.values_list("pk", flat=True):
        seconds = int(stale_after.total_seconds())
        _requeue(job_id, cutoff, f"no heartbeat for {seconds} s (the worker vanished)", report)
    queued = Job.objects.filter(status=JobStatus.QUEUED).filter(_silent_since(cutoff, "created_at"))
    for job_id, task_id, queue in queued.values_list("pk", "celery_task_id", "queue"):
        if broker_has_task(task_id=task_id, queue=queue) is False:
            _requeue(job_id, cutoff, "its task was lost by the broker", report)
    return report
