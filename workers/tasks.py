"""Celery tasks, one per entry of the job-kind table (``workers.kinds``).

A task only carries the job id; the runner (``workers.runner``) does the rest. The
task names are those queued messages carry, so they never change with the code.
"""

from __future__ import annotations

import re
from typing import Any

from celery import Task, shared_task

from jobs.janitor import jobs_janitor
from workers.kinds import JOB_KINDS, JobKindEntry
from workers.runner import run_job


def _task_for(entry: JobKindEntry) -> Task:
    def run(self: Task, job_id: int) -> None:
        run_job(self, job_id, entry.body, entry.describe)

    # Celery builds a signature-checking function of this name: it must be an identifier.
    run.__name__ = run.__qualname__ = re.sub(r"\W", "_", entry.task_name.rsplit(".", 1)[-1])
    task: Task = shared_task(
        bind=True,
        name=entry.task_name,
        soft_time_limit=entry.soft_time_limit,
        time_limit=entry.time_limit,
        max_retries=entry.max_retries,
        # Acknowledged when the run ends, and given back to the queue when the worker
        # child dies: job_start counts each run, so the redelivery is bounded.
        acks_late=True,
        reject_on_worker_lost=True,
    )(run)
    return task


# The Celery task of each job kind, by kind name.
TASKS: dict[str, Task] = {entry.name: _task_for(entry) for entry in JOB_KINDS}


# Celery beat runs it every JOBS_JANITOR_SECONDS (sanitizer_app.celery).
JANITOR_TASK_NAME = "sanitizer.jobs_janitor"


@shared_task(name=JANITOR_TASK_NAME, ignore_result=True)
def jobs_janitor_task() -> dict[str, Any]:
    return jobs_janitor().as_dict()
