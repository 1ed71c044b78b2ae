"""Jobs that fan out: the planning task and the chunk task of a kind with ``fan_out``.

A kind whose work is per document (pre-annotation, re-identification masking,
CP-SAT solving) declares a :class:`FanOut` in the kind table. Its task plans the
chunks (the job's documents in reading order, ``JOBS_CHUNK_DOCUMENTS`` at a time);
a job of one chunk runs in that task as before, a larger one is split
(``jobs.chunks.job_fan_out``) and its chunks run as a Celery group on every worker
of the queue. Each chunk runs the kind's ordinary body on the job narrowed to the
chunk's documents, so a chunk does exactly what the whole job would do to those
documents: the bodies are idempotent per job, which makes a re-delivered chunk
skip what it stored before it died.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from celery import Task
from django.conf import settings

from annotation.selectors import project_document_ids
from jobs.chunks import (
    Merge,
    job_chunk_fail,
    job_chunk_heartbeat,
    job_chunk_progress,
    job_chunk_requeue,
    job_chunk_start,
    job_chunk_succeed,
    job_fan_out,
    merge_sums,
)
from jobs.models import Job
from workers.runner import (
    FANNED_OUT,
    Describe,
    Heartbeat,
    JobBody,
    Outcome,
    Reporter,
    run_recorded,
)

logger = logging.getLogger(__name__)

# What narrows a job to one chunk: the body reads ``job.params`` with these entries.
ChunkPlan = dict[str, Any]


def plan_by_documents(job: Job) -> list[ChunkPlan]:
    """The job's documents (all of the project's, or ``params["document_ids"]``) in
    reading order, cut into chunks of ``params["chunk_size"]`` or JOBS_CHUNK_DOCUMENTS."""
    if job.project_id is None:
        return []
    size = int(job.params.get("chunk_size") or settings.JOBS_CHUNK_DOCUMENTS)
    ids = project_document_ids(
        project_id=job.project_id, document_ids=job.params.get("document_ids") or None
    )
    return [{"document_ids": ids[start : start + size]} for start in range(0, len(ids), size)]


@dataclass(frozen=True, kw_only=True)
class FanOut:
    """How a job kind splits (its plan) and how its chunks' results merge: the
    ``sum_keys`` add up, every other entry is the first chunk's."""

    sum_keys: tuple[str, ...]
    plan: Callable[[Job], list[ChunkPlan]] = plan_by_documents
    # Parameters fixed at planning and given to every chunk (e.g. the model to use).
    pin: Callable[[Job], dict[str, Any]] | None = None

    def merger(self) -> Merge:
        return merge_sums(self.sum_keys)


def narrowed(job: Job, plan: ChunkPlan) -> Job:
    """A copy of the job whose parameters are those of one chunk (never saved)."""
    chunk_job = copy.copy(job)
    chunk_job.params = {**job.params, **plan}
    return chunk_job


def fan_out_body(body: JobBody, fan_out: FanOut, chunk_task_name: str) -> JobBody:
    """The planning task's body: the whole job when it is one chunk, else the split."""

    def run(job: Job, reporter: Reporter) -> Any:
        plans = fan_out.plan(job)
        if len(plans) <= 1:
            return body(job, reporter)
        pinned = fan_out.pin(job) if fan_out.pin is not None else {}
        plans = [{**plan, **pinned} for plan in plans]
        count = job_fan_out(
            job_id=job.pk,
            chunk_params=plans,
            chunk_task_name=chunk_task_name,
            # Planned sizes: the job's progress counts the chunks still queued too.
            chunk_totals=[len(plan.get("document_ids") or ()) for plan in plans],
        )
        logger.info("job %s split into %s chunks", job.pk, count)
        return FANNED_OUT

    return run


class ChunkReporter(Reporter):
    """The progress sink of one chunk: its progress is summed into the job's."""

    def __init__(self, job_id: int, chunk_id: int, min_seconds: float = 0.5):
        super().__init__(job_id, min_seconds)
        self.chunk_id = chunk_id

    def write(self, done: int | None, total: int | None, message: str) -> None:
        job_chunk_progress(chunk_id=self.chunk_id, done=done, total=total, message=message)


class ChunkHeartbeat(Heartbeat):
    def __init__(self, job_id: int, chunk_id: int):
        super().__init__(job_id)
        self.chunk_id = chunk_id

    def beat(self) -> None:
        job_chunk_heartbeat(chunk_id=self.chunk_id)


def run_chunk(
    task: Task,
    job_id: int,
    chunk_id: int,
    body: JobBody,
    fan_out: FanOut,
    describe: Describe | None = None,
) -> None:
    """Claim one chunk, run the kind's body on the job narrowed to it, record the outcome."""
    chunk = job_chunk_start(
        chunk_id=chunk_id, task_id=task.request.id or "", worker=task.request.hostname or ""
    )
    if chunk is None:
        logger.info("chunk %s of job %s has nothing to do", chunk_id, job_id)
        return
    job = chunk.job
    reporter = ChunkReporter(job.pk, chunk_id)
    run_recorded(
        task,
        ChunkHeartbeat(job.pk, chunk_id),
        lambda: body(narrowed(job, chunk.params), reporter),
        Outcome(
            label=f"chunk {chunk_id} of job {job.pk}",
            attempts=chunk.attempts,
            kind=job.kind,
            fail=lambda error: job_chunk_fail(chunk_id=chunk_id, error=error),
            succeed=lambda result: job_chunk_succeed(
                chunk_id=chunk_id, result=result, merge=fan_out.merger(), describe=describe
            ),
            requeue=lambda: job_chunk_requeue(chunk_id=chunk_id),
        ),
    )
