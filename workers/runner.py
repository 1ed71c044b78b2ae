"""The job runner: claim the job, run its body with a progress sink, record the outcome.

Every run re-reads its job first (``job_start``): a finished or cancelled job is
never run twice. Progress goes into the Job row. Only transient infrastructure
errors (database or broker connection) are retried; anything else fails the job
with its traceback.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from celery import Task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, connections

from common.errors import DomainError
from jobs.models import Job, JobStatus
from jobs.services import (
    JobCancelledError,
    job_fail,
    job_heartbeat,
    job_log,
    job_max_attempts,
    job_progress,
    job_start,
    job_succeed,
)
from sanitizer.formats.tab import FormatError

logger = logging.getLogger(__name__)

# Problems with the user's input: the message is the whole story, no traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (FormatError, DomainError)
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    ConnectionError,
)


class Reporter:
    """Progress sink handed to services and plain-Python code as a callback.

    Row updates are throttled to one per ``min_seconds`` (a fine-grained caller may
    report every document); messages and the final report always go through, and
    every write also checks for cancellation.
    """

    def __init__(self, job_id: int, min_seconds: float = 0.5):
        self.job_id = job_id
        self._min_seconds = min_seconds
        self._last = float("-inf")

    def __call__(self, done: int, total: int, message: str = "") -> None:
        now = time.monotonic()
        if message or now - self._last >= self._min_seconds or (total and done >= total):
            self.write(done, total, message)
            self._last = now

    def log(self, message: str) -> None:
        self.write(None, None, message)

    def write(self, done: int | None, total: int | None, message: str) -> None:
        """Store a report (a chunk's reporter sums it into its job instead)."""
        if done is None or total is None:
            job_log(job_id=self.job_id, message=message)
        else:
            job_progress(job_id=self.job_id, done=done, total=total, message=message)


class Heartbeat:
    """A timer thread writing the job's heartbeat while a long step reports nothing.

    The janitor (``jobs.janitor``) re-queues a running job whose heartbeat is older
    than ``JOBS_STALE_SECONDS``: this thread is what keeps a live but silent job
    (one long training epoch) from looking dead.
    """

    def __init__(self, job_id: int, seconds: float | None = None):
        self.job_id = job_id
        self.seconds = seconds if seconds is not None else settings.JOBS_HEARTBEAT_SECONDS
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"job-{job_id}-heartbeat", daemon=True
        )

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.seconds):
                try:
                    self.beat()
                except Exception:
                    logger.warning("heartbeat of job %s not written", self.job_id, exc_info=True)
        finally:
            # Django's connections are per thread: this thread's go with it.
            connections.close_all()

    def beat(self) -> None:
        job_heartbeat(job_id=self.job_id)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        # Not joined for long: a write blocked on a lock must not hold up the outcome.
        self._thread.join(timeout=5)


class FannedOut:
    """A body's result meaning "split into chunks": the chunks finish the job."""


FANNED_OUT = FannedOut()

JobBody = Callable[[Job, Reporter], Any]
Describe = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class Outcome:
    """Where one run (a job's, or one chunk's) records how it ended."""

    label: str
    # Runs so far and the job kind: a transient error is retried within the bound.
    attempts: int
    kind: str
    fail: Callable[[str], object]
    succeed: Callable[[Any], object]
    # Puts the run back to queued before a retry; False when the job stopped meanwhile.
    requeue: Callable[[], bool]


def run_recorded(task: Task, heartbeat: Heartbeat, work: Callable[[], Any], out: Outcome) -> None:
    """Run ``work`` under ``heartbeat`` and record its outcome through ``out``.

    Only transient infrastructure errors (database or broker connection) are
    retried, and retries count as attempts (the claim counts each run), so the
    bound holds across both; anything else fails the run.
    """
    try:
        with heartbeat:
            result = work()
    except JobCancelledError:
        logger.info("%s stopped: its job was cancelled or ended", out.label)
    except USER_ERRORS as exc:
        out.fail(str(exc))
    except SoftTimeLimitExceeded:
        out.fail("time limit exceeded")
    except TRANSIENT_ERRORS as exc:
        retry = task.request.retries < (task.max_retries or 0)
        if retry and out.attempts < job_max_attempts(out.kind):
            connection.close()
            if out.requeue():
                raise task.retry(exc=exc, countdown=5 * 2**task.request.retries) from exc
            return
        out.fail(traceback.format_exc())
    except Exception:
        out.fail(traceback.format_exc())
    else:
        out.succeed(result)


def _job_requeue(job_id: int) -> bool:
    # Only a job still running goes back to the queue: a cancellation stands.
    Job.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(status=JobStatus.QUEUED)
    return True


def run_job(task: Task, job_id: int, body: JobBody, describe: Describe | None = None) -> None:
    """Claim the job, run ``body`` and record its outcome.

    ``describe`` turns the result into the final log line, written together with
    the success status (so no step that could fail stands between the work's
    commit and the job's success).
    """
    job = job_start(job_id=job_id, task_id=task.request.id or "")
    if job is None:
        logger.info("job %s has nothing to do (finished, cancelled or taken)", job_id)
        return

    def succeed(result: Any) -> None:
        if isinstance(result, FannedOut):
            return  # its chunks run as a Celery group; the last one finishes the job
        job_succeed(job_id=job_id, result=result, message=describe(result) if describe else "done")

    reporter = Reporter(job_id)
    run_recorded(
        task,
        Heartbeat(job_id),
        lambda: body(job, reporter),
        Outcome(
            label=f"job {job_id}",
            attempts=job.attempts,
            kind=job.kind,
            fail=lambda error: job_fail(job_id=job_id, error=error),
            succeed=succeed,
            requeue=lambda: _job_requeue(job_id),
        ),
    )
