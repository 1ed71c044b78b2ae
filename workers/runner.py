"""The job runner: claim the job, run its body with a progress sink, record the outcome.

Every run re-reads its job first (``job_start``): a finished or cancelled job is
never run twice. Progress goes into the Job row. Only transient infrastructure
errors (database or broker connection) are retried; anything else fails the job
with its traceback.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from typing import Any

from celery import Task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError, connection

from common.errors import DomainError
from jobs.models import Job, JobStatus
from jobs.services import (
    JobCancelledError,
    job_fail,
    job_log,
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
            job_progress(job_id=self.job_id, done=done, total=total, message=message)
            self._last = now

    def log(self, message: str) -> None:
        job_log(job_id=self.job_id, message=message)


JobBody = Callable[[Job, Reporter], dict[str, Any]]
Describe = Callable[[dict[str, Any]], str]


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
    reporter = Reporter(job_id)
    try:
        result = body(job, reporter)
    except JobCancelledError:
        logger.info("job %s cancelled", job_id)
    except USER_ERRORS as exc:
        job_fail(job_id=job_id, error=str(exc))
    except SoftTimeLimitExceeded:
        job_fail(job_id=job_id, error="time limit exceeded")
    except TRANSIENT_ERRORS as exc:
        if task.request.retries < (task.max_retries or 0):
            connection.close()
            # Only a job still running goes back to the queue: a cancellation stands.
            Job.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(status=JobStatus.QUEUED)
            raise task.retry(exc=exc, countdown=5 * 2**task.request.retries) from exc
        job_fail(job_id=job_id, error=traceback.format_exc())
    except Exception:
        job_fail(job_id=job_id, error=traceback.format_exc())
    else:
        job_succeed(job_id=job_id, result=result, message=describe(result) if describe else "done")
