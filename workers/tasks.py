"""Celery tasks, one per entry of the job-kind table (``workers.kinds``).

A task only carries the job id; the runner (``workers.runner``) does the rest. The
task names are those queued messages carry, so they never change with the code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from celery import Task, shared_task

from jobs.janitor import jobs_janitor
from workers.fanout import FanOut, fan_out_body, run_chunk
from workers.kinds import JOB_KINDS, JobKindEntry
from workers.runner import run_job


def _shared_task(entry: JobKindEntry, name: str, run: Callable[..., None]) -> Task:
    # Celery builds a signature-checking function of this name: it must be an identifier.
    run.__name__ = run.__qualname__ = re.sub(r"\W", "_", name.rsplit(".", 1)[-1])
    task: Task = shared_task(
        bind=True,
        name=name,
        soft_time_limit=entry.soft_time_limit,
        time_limit=entry.time_limit,
        max_retries=entry.max_retries,
        # Acknowledged when the run ends, and given back to the queue when the worker
        # child dies: the claim (job_start, job_chunk_start) counts each run, so the
        # redelivery is bounded.
        acks_late=True,
        reject_on_worker_lost=True,
    )(run)
    return task


def _task_for(entry: JobKindEntry) -> Task:
    body = entry.body
    if entry.fan_out is not None:
        body = fan_out_body(entry.body, entry.fan_out, entry.chunk_task_name)

    def run(self: Task, job_id: int) -> None:
        run_job(self, job_id, body, entry.describe)

    return _shared_task(entry, entry.task_name, run)


def _chunk_task_for(entry: JobKindEntry, fan_out: FanOut) -> Task:
    """The task running one chunk of a kind that fans out (same limits and acking)."""

    def run(self: Task, job_id: int, chunk_id: int) -> None:
        run_chunk(self, job_id, chunk_id, entry.body, fan_out, entry.describe)

    return _shared_task(entry, entry.chunk_task_name, run)


# The Celery task of each job kind, by kind name.
TASKS: dict[str, Task] = {entry.name: _task_for(entry) for entry in JOB_KINDS}
# The chunk task of each kind that fans out, by kind name.
CHUNK_TASKS: dict[str, Task] = {
    entry.name: _chunk_task_for(entry, entry.fan_out)
    for entry in JOB_KINDS
    if entry.fan_out is not None
}


# Celery beat runs it every JOBS_JANITOR_SECONDS (CELERY_BEAT_SCHEDULE in the settings).
JANITOR_TASK_NAME = "sanitizer.jobs_janitor"


@shared_task(name=JANITOR_TASK_NAME, ignore_result=True)
def jobs_janitor_task() -> dict[str, Any]:
    return jobs_janitor().as_dict()
