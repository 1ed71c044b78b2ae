"""What the three erasures share: the reason, cancelling jobs, model artefacts, the record."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db.models import Q, QuerySet

from annotation.models import Document, Project
from common.errors import DomainError
from erasure.models import REASON_MAX_CHARS, ErasureRecord
from erasure.services.files import files_remove_on_commit, stored_paths
from jobs.models import FINISHED_STATUSES, Job
from jobs.services import JobStateError, job_cancel
from knowledge.models import KnowledgeBase
from ml.models import ModelVersion
from ml.services.erased_data import model_versions_delete, model_versions_mark_erased_data


def reason_clean(reason: str) -> str:
    """The admin's reason, required and bounded (it is kept in the audit record)."""
    reason = (reason or "").strip()
    if not reason:
        raise DomainError("give a reason for the erasure (it is kept in the audit record)")
    if len(reason) > REASON_MAX_CHARS:
        raise DomainError(f"the reason is longer than {REASON_MAX_CHARS} characters")
    return reason


def active_jobs_cancel(*, project: Project, actor: Any) -> list[int]:
    """Cancel the project's queued and running jobs; returns their ids.

    A job running on the erased data would otherwise write results about it (or train a
    model on it) after the erasure. A running task stops at its next progress report.
    """
    cancelled = []
    active = Job.objects.filter(project=project).exclude(status__in=FINISHED_STATUSES)
    for job in active.order_by("id"):
        try:
            job_cancel(job=job, user=actor)
        except JobStateError:
            continue  # finished meanwhile: nothing left to stop
        cancelled.append(job.pk)
    return cancelled


def project_models(project: Project) -> QuerySet[ModelVersion]:
    """The project's model versions, and shared ones a job of the project trained."""
    return ModelVersion.objects.filter(Q(project=project) | Q(job__project=project)).distinct()


def models_affected(
    *, project: Project, document_ids: Collection[int], since: datetime
) -> list[ModelVersion]:
    """The project's models that may have learnt from the documents ``document_ids``.

    A model that records what it was trained on (``trained_on_documents``: the ids of
    the documents its training read) is affected exactly when one of them is among
    those documents. One that does not (registered from a path, trained by a command,
    or from before the ids were recorded) is affected when it was registered at or
    after ``since``: it may have learnt from data that existed then (the conservative
    answer: such a model is never missed, one that left the data out is still counted).
    """
    ids = set(document_ids)
    return [
        model_version
        for model_version in project_models(project).order_by("id")
        if (
            model_version.created_at >= since
            if model_version.trained_on_documents is None
            else not ids.isdisjoint(model_version.trained_on_documents)
        )
    ]


def models_without_other_documents(
    *, models: Iterable[ModelVersion], project: Project, erased: QuerySet[Document]
) -> tuple[list[ModelVersion], list[ModelVersion]]:
    """Split ``models`` into those trained only on the erased documents and those trained
    partly on them. A model that records its documents is trained only on the erased
    ones when they all are; one that does not, when no other document of the project
    existed when it was registered."""
    only: list[ModelVersion] = []
    partly: list[ModelVersion] = []
    erased_ids = set(erased.values_list("pk", flat=True))
    for model_version in models:
        if model_version.trained_on_documents is not None:
            is_only = erased_ids.issuperset(model_version.trained_on_documents)
        else:
            is_only = not (
                Document.objects.filter(project=project, created_at__lte=model_version.created_at)
                .exclude(pk__in=erased_ids)
                .exists()
            )
        (only if is_only else partly).append(model_version)
    return only, partly


def models_apply(
    *, delete: list[ModelVersion], mark: list[ModelVersion]
) -> tuple[list[int], list[int], list[Path]]:
    """Delete and mark; returns the deleted ids, the marked ids and the deleted
    models' artefact folders (to remove after the commit)."""
    deleted = model_versions_delete(model_versions=delete)
    marked = model_versions_mark_erased_data(model_versions=mark)
    return [pk for pk, _ in deleted], marked, [path for _, path in deleted if path is not None]


def _still_named(path: Path) -> bool:
    name = str(path)
    return (
        ModelVersion.objects.filter(artefact_path=name).exists()
        or KnowledgeBase.objects.filter(Q(source_path=name) | Q(index_dir=name)).exists()
    )


def record_create(
    *,
    kind: str,
    object_id: int,
    project_id: int | None,
    actor: Any,
    reason: str,
    removed: dict[str, Any],
    models_deleted: list[int],
    models_marked: list[int],
    jobs_cancelled: list[int],
    files: Iterable[Path | str | None],
) -> ErasureRecord:
    """Write the audit record and schedule the files' removal for after the commit.

    Runs after the rows are deleted: a path another model or knowledge base still names
    (two registrations of one folder) is kept, and counted."""
    paths, outside = stored_paths(files)
    in_use = [path for path in paths if _still_named(path)]
    paths = [path for path in paths if path not in in_use]
    if outside:
        removed = {**removed, "files_outside_storage_kept": outside}
    if in_use:
        removed = {**removed, "files_in_use_kept": len(in_use)}
    record = ErasureRecord(
        kind=kind,
        object_id=object_id,
        project_id=project_id,
        actor=actor if actor is not None and actor.is_authenticated else None,
        reason=reason,
        removed=removed,
        models_deleted=models_deleted,
        models_marked=models_marked,
        jobs_cancelled=jobs_cancelled,
        files_scheduled=len(paths),
    )
    record.full_clean()
    record.save()
    files_remove_on_commit(record=record, paths=paths)
    return record
