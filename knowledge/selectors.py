"""Reads: the knowledge bases a user or a project may use."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from annotation.selectors import projects_for_user
from knowledge.models import KnowledgeBase


def knowledge_bases_for_user(
    *, user: Any, project_id: int | None = None
) -> QuerySet[KnowledgeBase]:
    """Knowledge bases of the user's projects (or of one of them), and shared ones."""
    qs = KnowledgeBase.objects.filter(
        Q(project__in=projects_for_user(user=user)) | Q(project__isnull=True)
    )
    if project_id is not None:
        qs = qs.filter(Q(project_id=project_id) | Q(project__isnull=True))
    return qs


def knowledge_base_for_user(*, user: Any, knowledge_base_id: int) -> KnowledgeBase | None:
    return knowledge_bases_for_user(user=user).filter(pk=knowledge_base_id).first()


def knowledge_base_for_project(*, project: Any, knowledge_base_id: int) -> KnowledgeBase | None:
    """A knowledge base the project may use: its own or a shared one."""
    return (
        KnowledgeBase.objects.filter(Q(project=project) | Q(project__isnull=True))
        .filter(pk=knowledge_base_id)
        .first()
    )


def knowledge_base_in_scope(*, knowledge_base_id: int, project: Any, shared_ok: bool) -> bool:
    scope = Q(project=project) | Q(project__isnull=True) if shared_ok else Q(project=project)
    return KnowledgeBase.objects.filter(scope, pk=knowledge_base_id).exists()
