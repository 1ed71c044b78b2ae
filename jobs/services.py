"""Job lifecycle: create, start, progress, finish, cancel.

A job row is the single source of truth about background work: the Celery task
only carries the job id and is sent by name, so this app imports no worker code.
``job_create`` queues the task after the surrounding transaction commits, so a
worker never looks for a row that is not there yet.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from celery import current_app
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections, transaction
from django.utils import timezone

from common.errors import DomainError
from common.uploads import upload_discard
from jobs.errors import TRACEBACK_HEAD, public_error
from jobs.kinds import job_kind_get
from jobs.models import FINISHED_STATUSES, Job, JobChunk, JobStatus

logger = logging.getLogger(__name__)

LOG_TAIL_CHARS = 8000
PROGRESS_DB = "progress"
# For a job whose kind is no longer registered.
DEFAULT_MAX_ATTEMPTS = 3


class JobCancelledError(Exception):
    """Raised inside a running task when its job was cancelled."""


class JobStateError(DomainError):
    """An operation that does not fit the job's status (HTTP 400)."""


def broker_unreachable(job_id: int, exc: BaseException) -> None:
    """Fail a job whose task could not be sent.

    The row is committed already: record why nothing will run it instead of leaving
    a job queued forever (and failing the request that created it).
    """
    logger.exception("could not queue job %s", job_id)
    _finish(
        job_id,
        JobStatus.FAILED,
        "failed: could not reach the task broker",
        error=public_error(f"could not reach the task broker: {exc}"),
    )


def _enqueue(job_id: int, task_name: str, queue: str) -> None:
    try:
        result = current_app.send_task(task_name, args=[job_id], queue=queue)
    except Exception as exc:
        broker_unreachable(job_id, exc)
        return
    # The send time is the queued job's last sign of life (jobs.janitor).
    Job.objects.filter(pk=job_id).update(celery_task_id=result.id, heartbeat_at=timezone.now())


def job_max_attempts(kind: str) -> int:
    spec = job_kind_get(kind)
    return spec.max_attempts if spec is not None else DEFAULT_MAX_ATTEMPTS


def worker_died_message(attempts: int, limit: int) -> str:
    return (
        f"worker died {attempts} times while running this job "
        f"(at most {limit} attempts); not trying again"
    )


@transaction.atomic
def job_create(
    *,
    kind: str,
    params: dict[str, Any],
    project: Any = None,
    created_by: Any = None,
    queue: str | None = None,
) -> Job:
    """Save a queued job and send its task once the surrounding transaction commits.

    The kind must be registered (``jobs.kinds``); its validator, owned by the app
    whose data the parameters name, refuses parameters that reach outside the
    job's project or make no sense.
    """
    spec = job_kind_get(kind)
    if spec is None:
        raise JobStateError(f"unknown job kind {kind!r}")
    spec.validate(params, project)
    job = Job(
        kind=kind,
        params=params,
        project=project,
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        queue=queue or spec.queue,
    )
    job.full_clean()
    job.save()
    transaction.on_commit(lambda: _enqueue(job.pk, spec.task_name, job.queue))
    return job


@transaction.atomic
def job_start(*, job_id: int, task_id: str = "") -> Job | None:
    """Claim the job for this task run, or return None if there is nothing to do.

    A finished or cancelled job is never run again; a running job is resumed only
    by a redelivery of the same Celery task (the worker died mid-run). The attempt
    is counted and committed before the work starts: a run that kills its worker
    records no outcome, so only this count stops a crash loop. A job that used up
    its kind's attempts fails here instead of running again.
    """
    job = Job.objects.select_for_update().filter(pk=job_id).first()
    if job is None or job.status in FINISHED_STATUSES:
        return None
    if job.status == JobStatus.RUNNING and task_id and job.celery_task_id not in ("", task_id):
        return None
    if job_fail_if_exhausted(job=job):
        return None
    now = timezone.now()
    job.status = JobStatus.RUNNING
    job.started_at = job.started_at or now
    job.heartbeat_at = now
    job.attempts += 1
    if task_id:
        job.celery_task_id = task_id
    job.save(update_fields=["status", "started_at", "heartbeat_at", "attempts", "celery_task_id"])
    return job


def job_fail_if_exhausted(*, job: Job) -> bool:
    """Fail the job (locked by the caller) when it used up its kind's attempts.

    Every earlier run ended without an outcome (a transient error on the last allowed
    attempt fails the job in the runner): the worker died each time."""
    limit = job_max_attempts(job.kind)
    if job.attempts < limit:
        return False
    message = worker_died_message(job.attempts, limit)
    _finish(job.pk, JobStatus.FAILED, f"failed: {message}", error=message)
    return True


def job_requeue(*, job: Job, task_name: str, why: str) -> None:
    """Put a job (locked by the caller) back to queued and send its task after commit
    (the janitor, when its worker vanished or the broker lost its message)."""
    job.status = JobStatus.QUEUED
    job.heartbeat_at = timezone.now()
    job.log_tail = _append_log(job.log_tail, f"re-queued: {why}")
    job.save(update_fields=["status", "heartbeat_at", "log_tail"])
    job_id, queue = job.pk, job.queue
    transaction.on_commit(lambda: _enqueue(job_id, task_name, queue))


def job_heartbeat(*, job_id: int) -> None:
    """Say that the running job's worker is alive (a timer of the runner calls this)."""
    alias = _progress_alias()
    Job.objects.using(alias).filter(pk=job_id, status=JobStatus.RUNNING).update(
        heartbeat_at=timezone.now()
    )


def _append_log(tail: str, message: str) -> str:
    stamp = timezone.now().strftime("%H:%M:%S")
    tail = f"{tail}{stamp} {message}\n"
    return tail[-LOG_TAIL_CHARS:]


def _progress_alias() -> str:
    # Progress is written on its own connection so that it commits (and shows) while a
    # long all-or-nothing transaction on "default" is still open.
    return PROGRESS_DB if PROGRESS_DB in connections.databases else DEFAULT_DB_ALIAS


def _write_tail(job_id: int, done: int | None, total: int | None, message: str) -> None:
    alias = _progress_alias()
    try:
        with transaction.atomic(using=alias):
            job = (
                Job.objects.using(alias)
                .select_for_update()
                .only("status", "log_tail")
                .get(pk=job_id)
            )
            if job.status == JobStatus.CANCELLED:
                raise JobCancelledError(job_id)
            # Any report is a sign of life (jobs.janitor re-queues silent running jobs).
            updates: dict[str, Any] = {"heartbeat_at": timezone.now()}
            if total is not None and done is not None:
                updates["progress_total"] = total
                updates["progress_done"] = min(done, total) if total else done
            if message:
                updates["log_tail"] = _append_log(job.log_tail, message)
            Job.objects.using(alias).filter(pk=job_id).update(**updates)
    except OperationalError:
        if alias == DEFAULT_DB_ALIAS or connections[alias].vendor != "sqlite":
            raise
        # SQLite has one writer at a time: while the job's own transaction holds the
        # lock, progress is dropped rather than blocking the work.
        logger.debug("progress of job %s not recorded: database locked", job_id)


def job_progress(*, job_id: int, done: int, total: int, message: str = "") -> None:
    """Record progress; raises :class:`JobCancelledError` if the job was cancelled meanwhile."""
    _write_tail(job_id, done, total, message)


def job_log(*, job_id: int, message: str) -> None:
    _write_tail(job_id, None, None, message)


def _finish(job_id: int, status: str, message: str = "", **fields: Any) -> Job:
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        late_cancel = job.status == JobStatus.CANCELLED and status == JobStatus.SUCCEEDED
        if job.status in FINISHED_STATUSES and not late_cancel:
            return job
        if late_cancel:
            # The work was committed before the task saw the cancellation: say so
            # rather than report a cancelled job whose results are in the database.
            message = f"{message}; finished before the cancellation took effect".lstrip("; ")
        job.status = status
        job.finished_at = timezone.now()
        for key, value in fields.items():
            setattr(job, key, value)
        if message:
            job.log_tail = _append_log(job.log_tail, message)
        if status == JobStatus.SUCCEEDED and job.progress_total:
            job.progress_done = job.progress_total
        job.save()
        if status != JobStatus.SUCCEEDED:
            _chunks_stop(job.pk, status)
        upload = job_upload(job)
        if upload is not None:
            # Kept until now so that a retried attempt still finds it; personal data
            # goes as soon as no attempt will read it again.
            transaction.on_commit(lambda: upload_discard(path=upload))
        return job


def _chunks_stop(job_id: int, status: str) -> None:
    """End the unfinished chunks of a job that failed or was cancelled.

    Chunks still queued are dropped from the broker; a running one stops at its next
    progress report (it finds its job finished), and its committed batches stay, as
    for a job cancelled while running in one task.
    """
    unfinished = JobChunk.objects.filter(job_id=job_id).exclude(status__in=FINISHED_STATUSES)
    task_ids = [
        task_id for task_id in unfinished.values_list("celery_task_id", flat=True) if task_id
    ]
    unfinished.update(status=JobStatus.CANCELLED, finished_at=timezone.now())
    if task_ids:
        transaction.on_commit(lambda: _revoke(task_ids))


def _revoke(task_ids: str | list[str]) -> None:
    try:
        # Only drops tasks that have not started; running ones see the job's status.
        current_app.control.revoke(task_ids)
    except Exception:
        logger.exception("could not revoke tasks %s", task_ids)


def job_upload(job: Job) -> Path | None:
    """The uploaded file the job reads and owns (``params["delete_after"]``), if any."""
    params = job.params if isinstance(job.params, dict) else {}
    path = params.get("path")
    if not params.get("delete_after") or not isinstance(path, str) or not path:
        return None
    return Path(path)


def job_succeed(*, job_id: int, result: dict[str, Any], message: str = "done") -> Job:
    return _finish(job_id, JobStatus.SUCCEEDED, message, result=result)


def job_fail(*, job_id: int, error: str) -> Job:
    if TRACEBACK_HEAD in error:
        # For admins: the log keeps the traceback; users see no server paths (jobs.errors).
        logger.error("job %s failed\n%s", job_id, error)
    error = public_error(error)
    # The last line of a traceback is the exception itself: that is what people read.
    headline = error.strip().splitlines()[-1] if error.strip() else ""
    return _finish(job_id, JobStatus.FAILED, f"failed: {headline}", error=error[-4000:])


@transaction.atomic
def job_retry(*, job: Job, user: Any = None) -> Job:
    """Queue a failed or cancelled job again, as new: its attempts count from zero.

    The parameters are checked again (what they name may be gone). An import whose
    upload was removed when it ended cannot run again: the file must be uploaded anew.
    """
    job = Job.objects.select_for_update().get(pk=job.pk)
    if job.status not in (JobStatus.FAILED, JobStatus.CANCELLED):
        raise JobStateError(f"only failed or cancelled jobs can be retried; this one {job.status}")
    spec = job_kind_get(job.kind)
    if spec is None:
        raise JobStateError(f"unknown job kind {job.kind!r}")
    spec.validate(job.params, job.project)
    upload = job_upload(job)
    if upload is not None and not upload.exists():
        raise JobStateError("the uploaded file was removed when the job ended; upload it again")
    who = getattr(user, "username", "") or "system"
    # A fanned-out job plans its chunks afresh; what they stored is kept and skipped
    # (each kind's work is idempotent per job).
    job.chunks.all().delete()
    job.status = JobStatus.QUEUED
    job.attempts = 0
    job.error = ""
    job.result = {}
    job.progress_done = job.progress_total = 0
    job.started_at = job.finished_at = job.heartbeat_at = None
    job.celery_task_id = ""
    job.log_tail = _append_log(job.log_tail, f"retried by {who}")
    job.full_clean()
    job.save()
    transaction.on_commit(lambda: _enqueue(job.pk, spec.task_name, job.queue))
    return job


@transaction.atomic
def job_delete(*, job: Job) -> None:
    """Delete the job row; an upload it owns goes with it (personal data)."""
    upload = job_upload(job)
    job.delete()
    if upload is not None:
        transaction.on_commit(lambda: upload_discard(path=upload))


def job_cancel(*, job: Job, user: Any = None) -> Job:
    """Cancel a queued or running job; a running task stops at its next progress report."""
    if job.status in FINISHED_STATUSES:
        raise JobStateError(f"the job already {job.status}")
    who = getattr(user, "username", "") or "system"
    job = _finish(job.pk, JobStatus.CANCELLED, f"cancelled by {who}")
    if job.celery_task_id and job.status == JobStatus.CANCELLED:
        # Its chunks, if it fanned out, are revoked by _finish. After the commit only:
        # a surrounding transaction (an erasure) that rolls back leaves the task be.
        task_id = job.celery_task_id
        transaction.on_commit(lambda: _revoke(task_id))
    return job
