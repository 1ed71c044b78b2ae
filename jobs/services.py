"""Job lifecycle and model versions.

A job row is the single source of truth about background work: the Celery task
only carries the job id. ``job_create`` queues the task after the surrounding
transaction commits, so a worker never looks for a row that is not there yet.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

from common.errors import DomainError
from jobs.models import FINISHED_STATUSES, Job, JobKind, JobStatus, ModelKind, ModelVersion

logger = logging.getLogger(__name__)

LOG_TAIL_CHARS = 8000
PROGRESS_DB = "progress"

# Celery task name and queue per job kind; tasks are looked up by name so this module
# does not import the worker code.
JOB_TASKS: dict[str, tuple[str, str]] = {
    JobKind.IMPORT: ("sanitizer.import_documents", "cpu"),
    JobKind.PREANNOTATE: ("sanitizer.preannotate", "gpu"),
    JobKind.TRAIN_RECOGNIZER: ("sanitizer.train_recognizer", "gpu"),
    JobKind.KB_IMPORT: ("sanitizer.kb_build", "cpu"),
    JobKind.DISTANT_LABEL: ("sanitizer.distant_label", "cpu"),
    JobKind.TRAIN_MASKER: ("sanitizer.train_masker", "gpu"),
}


class JobCancelledError(Exception):
    """Raised inside a running task when its job was cancelled."""


class JobStateError(DomainError):
    """An operation that does not fit the job's status (HTTP 400)."""


def _enqueue(job_id: int, task_name: str, queue: str) -> None:
    from sanitizer_app.celery import app

    try:
        result = app.send_task(task_name, args=[job_id], queue=queue)
    except Exception as exc:
        # The row is committed already: record why nothing will run it instead of
        # leaving a job queued forever (and failing the request that created it).
        logger.exception("could not queue job %s", job_id)
        _finish(
            job_id,
            JobStatus.FAILED,
            "failed: could not reach the task broker",
            error=f"could not reach the task broker: {exc}",
        )
        return
    Job.objects.filter(pk=job_id).update(celery_task_id=result.id)


def _id_param(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise JobStateError(f"{key} must be an integer id")
    return value


def _model_version_in_scope(value: Any, project: Any, kind: str) -> None:
    _id_param(value, "model_version_id")
    ok = ModelVersion.objects.filter(pk=value, kind=kind).filter(
        Q(project=project) | Q(project__isnull=True)
    )
    if not ok.exists():
        raise JobStateError(f"no {kind} model version {value!r} in this project")


def _knowledge_base_in_scope(value: Any, project: Any, *, shared_ok: bool) -> None:
    from knowledge.models import KnowledgeBase

    _id_param(value, "knowledge_base_id")
    scope = Q(project=project) | Q(project__isnull=True) if shared_ok else Q(project=project)
    if not KnowledgeBase.objects.filter(scope, pk=value).exists():
        raise JobStateError(f"no knowledge base {value!r} in this project")


def _int_param(params: dict[str, Any], key: str, low: int, high: int) -> None:
    value = params.get(key)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise JobStateError(f"{key} must be an integer from {low} to {high}")


def job_params_validate(*, kind: str, params: dict[str, Any], project: Any) -> None:
    """Refuse parameters that reach outside the job's project or make no sense.

    Ids in parameters must name objects of the same project (or shared ones), so a
    project admin cannot run another project's models or knowledge bases.
    """
    if kind == JobKind.PREANNOTATE:
        if params.get("model_version_id") is not None:
            _model_version_in_scope(params["model_version_id"], project, ModelKind.RECOGNIZER)
        _int_param(params, "batch_size", 1, 256)
    elif kind == JobKind.KB_IMPORT:
        _knowledge_base_in_scope(params.get("knowledge_base_id"), project, shared_ok=False)
    elif kind == JobKind.DISTANT_LABEL:
        _knowledge_base_in_scope(params.get("knowledge_base_id"), project, shared_ok=True)
        if "k" not in params:
            raise JobStateError("k is required")
        _int_param(params, "k", 1, 1_000_000)
        _int_param(params, "max_arity", 1, 6)
        if params.get("selection", "greedy") not in ("greedy", "random"):
            raise JobStateError("selection must be greedy or random")
    elif kind in (JobKind.TRAIN_RECOGNIZER, JobKind.TRAIN_MASKER):
        from jobs.training import TRAINING_JOB_KEYS

        allowed = set(TRAINING_JOB_KEYS)
        if kind == JobKind.TRAIN_MASKER:
            _knowledge_base_in_scope(params.get("knowledge_base_id"), project, shared_ok=True)
            allowed |= {"knowledge_base_id", "k", "max_arity", "selection", "seed"}
        unknown = set(params) - allowed
        if unknown:
            raise JobStateError(f"unknown training parameters: {', '.join(sorted(unknown))}")
        name = params.get("name")
        # The name becomes a folder under MODEL_DIR: a slug, so it cannot point elsewhere.
        if name is not None and (
            not isinstance(name, str) or slugify(name) != name or not 0 < len(name) <= 120
        ):
            raise JobStateError("name must be a slug of at most 120 characters")
        base_model = params.get("base_model")
        if base_model and base_model not in settings.ALLOWED_BASE_MODELS:
            raise JobStateError(
                "base_model must be one of the models the administrator allowed "
                "(ALLOWED_BASE_MODELS)"
            )
        for key in ("epochs", "max_steps", "batch_size", "max_length", "num_threads"):
            _int_param(params, key, 1, 1_000_000)


@transaction.atomic
def job_create(
    *,
    kind: str,
    params: dict[str, Any],
    project: Any = None,
    created_by: Any = None,
    queue: str | None = None,
) -> Job:
    if kind not in JOB_TASKS:
        raise JobStateError(f"unknown job kind {kind!r}")
    task_name, default_queue = JOB_TASKS[kind]
    job_params_validate(kind=kind, params=params, project=project)
    job = Job(
        kind=kind,
        params=params,
        project=project,
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        queue=queue or default_queue,
    )
    job.full_clean()
    job.save()
    transaction.on_commit(lambda: _enqueue(job.pk, task_name, job.queue))
    return job


@transaction.atomic
def job_start(*, job_id: int, task_id: str = "") -> Job | None:
    """Claim the job for this task run, or return None if there is nothing to do.

    A finished or cancelled job is never run again; a running job is resumed only
    by a redelivery of the same Celery task (the worker died mid-run).
    """
    job = Job.objects.select_for_update().filter(pk=job_id).first()
    if job is None or job.status in FINISHED_STATUSES:
        return None
    if job.status == JobStatus.RUNNING and task_id and job.celery_task_id not in ("", task_id):
        return None
    job.status = JobStatus.RUNNING
    job.started_at = job.started_at or timezone.now()
    job.attempts += 1
    if task_id:
        job.celery_task_id = task_id
    job.save(update_fields=["status", "started_at", "attempts", "celery_task_id"])
    return job


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
            updates: dict[str, Any] = {}
            if total is not None and done is not None:
                updates["progress_total"] = total
                updates["progress_done"] = min(done, total) if total else done
            if message:
                updates["log_tail"] = _append_log(job.log_tail, message)
            if updates:
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
        return job


def job_succeed(*, job_id: int, result: dict[str, Any], message: str = "done") -> Job:
    return _finish(job_id, JobStatus.SUCCEEDED, message, result=result)


def job_fail(*, job_id: int, error: str) -> Job:
    # The last line of a traceback is the exception itself: that is what people read.
    headline = error.strip().splitlines()[-1] if error.strip() else ""
    return _finish(job_id, JobStatus.FAILED, f"failed: {headline}", error=error[-4000:])


def job_cancel(*, job: Job, user: Any = None) -> Job:
    """Cancel a queued or running job; a running task stops at its next progress report."""
    if job.status in FINISHED_STATUSES:
        raise JobStateError(f"the job already {job.status}")
    who = getattr(user, "username", "") or "system"
    job = _finish(job.pk, JobStatus.CANCELLED, f"cancelled by {who}")
    if job.celery_task_id and job.status == JobStatus.CANCELLED:
        from sanitizer_app.celery import app

        try:
            # Only drops a task that has not started; a running one sees the status.
            app.control.revoke(job.celery_task_id)
        except Exception:
            logger.exception("could not revoke the task of job %s", job.pk)
    return job


# --- model versions ------------------------------------------------------------------


@transaction.atomic
def model_version_create(
    *,
    kind: str,
    name: str,
    version: str,
    artefact_path: str,
    base_model: str = "",
    config: dict[str, Any] | None = None,
    training_summary: dict[str, Any] | None = None,
    metrics: dict[str, Any] | None = None,
    project: Any = None,
    job: Job | None = None,
    created_by: Any = None,
    activate: bool = False,
) -> ModelVersion:
    model_version = ModelVersion(
        kind=kind,
        name=name,
        version=version,
        artefact_path=artefact_path,
        base_model=base_model,
        config=config or {},
        training_summary=training_summary or {},
        metrics=metrics or {},
        project=project,
        job=job,
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
    )
    model_version.full_clean()
    model_version.save()
    if activate:
        model_version_activate(model_version=model_version)
    return model_version


@transaction.atomic
def model_version_activate(*, model_version: ModelVersion) -> ModelVersion:
    """Make this the active model of its kind (per project, or shared)."""
    ModelVersion.objects.select_for_update().filter(
        kind=model_version.kind, project=model_version.project, is_active=True
    ).exclude(pk=model_version.pk).update(is_active=False)
    model_version.is_active = True
    model_version.save(update_fields=["is_active"])
    return model_version
