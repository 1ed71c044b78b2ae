"""Celery tasks, one per entry of the job-kind table (``workers.kinds``).

A task only carries the job id; the runner (``workers.runner``) does the rest. The
task names are those queued messages carry, so they never change with the code.
"""

from __future__ import annotations

import re

from celery import Task, shared_task

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
        acks_late=True,
    )(run)
    return task


# The Celery task of each job kind, by kind name.
TASKS: dict[str, Task] = {entry.name: _task_for(entry) for entry in JOB_KINDS}
