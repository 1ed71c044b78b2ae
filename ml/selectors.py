"""Reads: model versions a user may see, the active model, the documents to train on."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from annotation.models import Document, Membership, Project, Split
from ml.models import ModelVersion


def model_versions_for_user(
    *, user: Any, project: Any = None, kind: str | None = None, is_active: bool | None = None
) -> QuerySet[ModelVersion]:
    """Shared model versions plus those of the user's projects (optionally filtered)."""
    qs = ModelVersion.objects.select_related("project")
    if project is not None:
        qs = qs.filter(project=project)
    if kind is not None:
        qs = qs.filter(kind=kind)
    if is_active is not None:
        qs = qs.filter(is_active=is_active)
    if user.is_superuser:
        return qs
    member_of = Membership.objects.filter(user=user).values("project_id")
    return qs.filter(Q(project__isnull=True) | Q(project_id__in=member_of))


def model_version_find(*, model_version_id: int) -> ModelVersion | None:
    return ModelVersion.objects.select_related("project").filter(pk=model_version_id).first()


def model_version_in_scope(*, model_version_id: int, project: Any, kind: str) -> bool:
    """Whether the id names a model of ``kind`` of this project, or a shared one."""
    return (
        ModelVersion.objects.filter(pk=model_version_id, kind=kind)
        .filter(Q(project=project) | Q(project__isnull=True))
        .exists()
    )


def active_model_version(*, project: Project | None, kind: str) -> ModelVersion | None:
    """The project's active model of ``kind``, else the active shared one."""
    qs = ModelVersion.objects.filter(kind=kind, is_active=True)
    if project is not None:
        own = qs.filter(project=project).first()
        if own is not None:
            return own
    return qs.filter(project__isnull=True).first()


def training_documents(
    *, project: Project, max_documents: int | None = None
) -> list[tuple[Document, bool]]:
    """The documents a model may learn from, each with whether it is held out (dev).

    ``test`` documents are never trained on. ``dev`` documents drive early stopping;
    a project without any holds out every tenth document instead.
    """
    qs = project.documents.exclude(split=Split.TEST).order_by("position", "id")
    documents = list(qs[:max_documents] if max_documents else qs)
    has_dev = any(d.split == Split.DEV for d in documents)
    return [
        (document, document.split == Split.DEV if has_dev else i % 10 == 9)
        for i, document in enumerate(documents)
    ]
