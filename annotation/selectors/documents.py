"""Reads: projects, documents and members by id, and an annotator's queue."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, F, OuterRef, QuerySet

from annotation.models import AnnotationSet, Document, Membership, Project, SetKind
from annotation.selectors.access import projects_for_user


def project_get(*, project_id: int) -> Project | None:
    return Project.objects.filter(pk=project_id).first()


def project_by_name(*, name: str) -> Project | None:
    """The project the commands mean by ``name``. Names are unique per creator only;
    the one made by a command (no creator) wins, else the oldest."""
    return (
        Project.objects.filter(name=name)
        .order_by(F("created_by").asc(nulls_first=True), "id")
        .first()
    )


def document_get(*, document_id: int) -> Document | None:
    return Document.objects.select_related("project").filter(pk=document_id).first()


def annotator_queue(*, user: Any, project: Project | None = None) -> QuerySet[Document]:
    qs = Document.objects.filter(assignments__user=user)
    if project is not None:
        qs = qs.filter(project=project)
    own_sets = AnnotationSet.objects.filter(
        document=OuterRef("pk"), annotator=user, kind=SetKind.HUMAN
    )
    return (
        qs.annotate(
            has_own_set=Exists(own_sets),
        )
        .select_related("project")
        .order_by("project__name", "position", "id")
    )


def my_queue(*, user: Any, project: Project | None = None) -> QuerySet[Document]:
    """The user's assigned documents; assignments outlive memberships, so only
    projects the user still belongs to count."""
    return annotator_queue(user=user, project=project).filter(
        project__in=projects_for_user(user=user)
    )


def project_memberships(*, project: Project) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(project=project).select_related("user").order_by("user__username")
    )


def project_membership(*, project: Project, user_id: int) -> Membership | None:
    return project_memberships(project=project).filter(user_id=user_id).first()


def user_memberships(*, user: Any) -> QuerySet[Membership]:
    return Membership.objects.filter(user=user).select_related("project").order_by("project__name")


def project_document_ids(*, project_id: int, document_ids: list[int] | None = None) -> list[int]:
    """The ids of the project's documents in reading order (position, then id),
    narrowed to ``document_ids`` when given (ids of other projects drop out)."""
    documents = Document.objects.filter(project_id=project_id)
    if document_ids:
        documents = documents.filter(pk__in=document_ids)
    return list(documents.order_by("position", "id").values_list("pk", flat=True))
