"""Erasing a project: its documents and everything about them, members and invitations,
jobs (and their uploads), knowledge bases (source files and indexes) and models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db import transaction

from annotation.models import Project
from annotation.usernames import import_stand_in_suffix
from erasure.models import ErasureKind, ErasureRecord
from erasure.services.base import (
    active_jobs_cancel,
    models_apply,
    project_models,
    reason_clean,
    record_create,
)
from erasure.services.documents import document_counts
from jobs.models import Job
from jobs.services import job_upload
from knowledge.models import KnowledgeBase


def _import_stand_ins_delete(project_id: int) -> int:
    """Delete the accounts this project's imports made (``<name>@import.<project id>``,
    inactive, no usable password): each is an annotator name from the project's files
    and nothing else. Run after the project's rows are gone; one that still owns a set
    or a membership elsewhere (an admin attached it there by hand) is kept."""
    stand_ins = get_user_model().objects.filter(
        username__endswith=import_stand_in_suffix(project_id),
        is_active=False,
        password__startswith=UNUSABLE_PASSWORD_PREFIX,
        annotation_sets__isnull=True,
        memberships__isnull=True,
    )
    ids = list(stand_ins.values_list("pk", flat=True).distinct())
    get_user_model().objects.filter(pk__in=ids).delete()
    return len(ids)


@transaction.atomic
def project_erase(*, project: Project, actor: Any, reason: str) -> ErasureRecord:
    """Delete the project with all its data; leave an audit record.

    Its queued and running jobs are cancelled first; the stand-in accounts its imports
    made for the annotators named in files go too. Every model of the project (and
    any shared model one of its jobs trained) is deleted: they learnt only from it.
    Files go after the commit: job uploads, model folders, the knowledge bases' source
    files and indexes. Shared knowledge bases and models stay.
    """
    reason = reason_clean(reason)
    project = Project.objects.select_for_update().get(pk=project.pk)
    jobs_cancelled = active_jobs_cancel(project=project, actor=actor)
    jobs = list(Job.objects.filter(project=project))
    knowledge_bases = list(KnowledgeBase.objects.filter(project=project))
    models = list(project_models(project))
    files: list[Path | str | None] = [job_upload(job) for job in jobs]
    for knowledge_base in knowledge_bases:
        files += [knowledge_base.source_path, knowledge_base.index_dir]
    removed = {
        **document_counts(documents=project.documents.all()),
        "memberships": project.memberships.count(),
        "invitations": project.invitations.count(),
        "jobs": len(jobs),
        "knowledge_bases": len(knowledge_bases),
    }
    project_id = project.pk
    # The models first: a shared one only points at the project through its job.
    models_deleted, _, folders = models_apply(delete=models, mark=[])
    project.delete()
    removed["import_stand_ins"] = _import_stand_ins_delete(project_id)
    return record_create(
        kind=ErasureKind.PROJECT,
        object_id=project_id,
        project_id=project_id,
        actor=actor,
        reason=reason,
        removed=removed,
        models_deleted=models_deleted,
        models_marked=[],
        jobs_cancelled=jobs_cancelled,
        files=[*files, *folders],
    )
