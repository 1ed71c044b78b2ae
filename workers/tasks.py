"""Celery tasks: thin wrappers that take a job id and call services or plain-Python code.

Every task re-reads its job first (``job_start``): a finished or cancelled job is
never run twice. Progress goes into the Job row. Only transient infrastructure
errors (database or broker connection) are retried; anything else fails the job
with its traceback.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError

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


def run_job(
    task: Task,
    job_id: int,
    body: Callable[[Job, Reporter], dict[str, Any]],
    describe: Callable[[dict[str, Any]], str] | None = None,
) -> None:
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
            from django.db import connection

            connection.close()
            # Only a job still running goes back to the queue: a cancellation stands.
            Job.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(status=JobStatus.QUEUED)
            raise task.retry(exc=exc, countdown=5 * 2**task.request.retries) from exc
        job_fail(job_id=job_id, error=traceback.format_exc())
    except Exception:
        job_fail(job_id=job_id, error=traceback.format_exc())
    else:
        job_succeed(job_id=job_id, result=result, message=describe(result) if describe else "done")


def _project_of(job: Job) -> Any:
    from annotation.models import Project

    if job.project_id is None:
        raise DomainError(f"{job.kind} jobs need a project")
    return Project.objects.get(pk=job.project_id)


def _import_documents(job: Job, reporter: Reporter) -> dict[str, Any]:
    from annotation.services import document_import

    project = _project_of(job)
    path = Path(job.params["path"])
    fmt = job.params["format"]
    reporter.log(f"importing {path.name} ({fmt})")
    try:
        summary = document_import(
            project=project, path=path, fmt=fmt, user=job.created_by, progress=reporter
        )
    finally:
        # An uploaded file is deleted whether or not its import succeeded.
        if job.params.get("delete_after"):
            path.unlink(missing_ok=True)
    # Nothing that can raise comes between the import's commit and the job's success.
    return summary.as_dict()


@shared_task(
    bind=True,
    name="sanitizer.import_documents",
    soft_time_limit=3000,
    time_limit=3300,
    max_retries=3,
    acks_late=True,
)
def import_documents(self: Task, job_id: int) -> None:
    run_job(
        self,
        job_id,
        _import_documents,
        lambda r: (
            f"imported {r['documents']} documents, {r['annotation_sets']} sets, {r['spans']} spans"
        ),
    )


def _preannotate(job: Job, reporter: Reporter) -> dict[str, Any]:
    from annotation.preannotation import preannotate_documents
    from jobs.models import ModelVersion

    project = _project_of(job)
    model_version = None
    if job.params.get("model_version_id"):
        model_version = ModelVersion.objects.get(pk=job.params["model_version_id"])
    return preannotate_documents(
        project=project,
        job=job,
        model_version=model_version,
        document_ids=job.params.get("document_ids"),
        skip_existing=job.params.get("skip_existing", True),
        batch_size=int(job.params.get("batch_size", 8)),
        progress=reporter,
    )


@shared_task(
    bind=True,
    name="sanitizer.preannotate",
    soft_time_limit=6 * 3600,
    time_limit=6 * 3600 + 300,
    max_retries=3,
    acks_late=True,
)
def preannotate(self: Task, job_id: int) -> None:
    run_job(self, job_id, _preannotate)


def _model_result(model_version: Any) -> dict[str, Any]:
    return {
        "model_version_id": model_version.pk,
        "model": model_version.label,
        "metrics": model_version.metrics,
        "active": model_version.is_active,
    }


def _train_recognizer(job: Job, reporter: Reporter) -> dict[str, Any]:
    from jobs.training import recognizer_train

    project = _project_of(job)
    model_version = recognizer_train(
        project=project, params=job.params, job=job, created_by=job.created_by, progress=reporter
    )
    return _model_result(model_version)


@shared_task(
    bind=True,
    name="sanitizer.train_recognizer",
    soft_time_limit=12 * 3600,
    time_limit=12 * 3600 + 600,
    max_retries=1,
    acks_late=True,
)
def train_recognizer(self: Task, job_id: int) -> None:
    run_job(self, job_id, _train_recognizer)


def _kb_build(job: Job, reporter: Reporter) -> dict[str, Any]:
    from knowledge.models import KnowledgeBase
    from knowledge.services import knowledge_base_build

    kb = KnowledgeBase.objects.get(pk=job.params["knowledge_base_id"])
    reporter.log(f"indexing {kb.source_format} knowledge base {kb.name}")
    kb = knowledge_base_build(knowledge_base=kb, progress=Reporter(job.pk, min_seconds=1.0))
    return {
        "knowledge_base_id": kb.pk,
        "persons": kb.n_persons,
        "terms": kb.n_terms,
        "index_bytes": kb.index_bytes,
    }


@shared_task(
    bind=True,
    name="sanitizer.kb_build",
    soft_time_limit=12 * 3600,
    time_limit=12 * 3600 + 600,
    max_retries=1,
    acks_late=True,
)
def kb_build(self: Task, job_id: int) -> None:
    run_job(self, job_id, _kb_build)


def _distant_label(job: Job, reporter: Reporter) -> dict[str, Any]:
    from knowledge.models import KnowledgeBase
    from knowledge.services import distant_label_project

    params = job.params
    return distant_label_project(
        project=_project_of(job),
        knowledge_base=KnowledgeBase.objects.get(pk=params["knowledge_base_id"]),
        k=int(params["k"]),
        max_arity=int(params.get("max_arity", 3)),
        selection=params.get("selection", "greedy"),
        seed=int(params.get("seed", 0)),
        job=job,
        progress=reporter,
    )


@shared_task(
    bind=True,
    name="sanitizer.distant_label",
    soft_time_limit=6 * 3600,
    time_limit=6 * 3600 + 300,
    max_retries=3,
    acks_late=True,
)
def distant_label(self: Task, job_id: int) -> None:
    run_job(self, job_id, _distant_label)


def _train_masker(job: Job, reporter: Reporter) -> dict[str, Any]:
    from knowledge.models import KnowledgeBase
    from knowledge.services import masker_train

    model_version = masker_train(
        project=_project_of(job),
        knowledge_base=KnowledgeBase.objects.get(pk=job.params["knowledge_base_id"]),
        params=job.params,
        job=job,
        created_by=job.created_by,
        progress=reporter,
    )
    return _model_result(model_version)


@shared_task(
    bind=True,
    name="sanitizer.train_masker",
    soft_time_limit=12 * 3600,
    time_limit=12 * 3600 + 600,
    max_retries=1,
    acks_late=True,
)
def train_masker(self: Task, job_id: int) -> None:
    run_job(self, job_id, _train_masker)
