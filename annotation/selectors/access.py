"""Reads: who may see which project, document and annotation set.

These are the visibility rules; ``annotation.permissions`` maps them to HTTP answers.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from annotation.models import (
    AnnotationSet,
    Assignment,
    Document,
    Membership,
    Project,
    Role,
    SetKind,
    SetStatus,
)

# Annotator sets that count in review and agreement: handed in (submitted, or reviewed
# once the gold set is published). A set still in progress is work the annotator has
# not finished; counting it would make a half-done set look like a disagreement.
COUNTED_SET_STATUSES: tuple[str, ...] = (SetStatus.SUBMITTED, SetStatus.REVIEWED)


def project_role(*, user: Any, project: Project | int) -> str | None:
    """The user's role in the project, or None. Superusers act as project admins."""
    if user is None or not user.is_authenticated:
        return None
    if user.is_superuser:
        return Role.ADMIN
    project_id = project.pk if isinstance(project, Project) else project
    return (
        Membership.objects.filter(project_id=project_id, user=user)
        .values_list("role", flat=True)
        .first()
    )


def projects_for_user(*, user: Any) -> QuerySet[Project]:
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(memberships__user=user).distinct()


def documents_for_user(*, user: Any, project: Project | None = None) -> QuerySet[Document]:
    """Documents of the user's projects; annotators see only documents assigned to them
    or that they annotated, reviewers and admins see all of their projects' documents."""
    qs = Document.objects.all()
    if project is not None:
        qs = qs.filter(project=project)
    if user.is_superuser:
        return qs
    privileged = Membership.objects.filter(user=user, role__in=(Role.REVIEWER, Role.ADMIN)).values(
        "project_id"
    )
    annotator_projects = Membership.objects.filter(user=user, role=Role.ANNOTATOR).values(
        "project_id"
    )
    return qs.filter(
        Q(project_id__in=privileged)
        | (
            Q(project_id__in=annotator_projects)
            & (Q(assignments__user=user) | Q(annotation_sets__annotator=user))
        )
    ).distinct()


def document_visible(*, user: Any, document: Document) -> bool:
    return documents_for_user(user=user, project=document.project).filter(pk=document.pk).exists()


def gold_published(*, document: Document) -> bool:
    return AnnotationSet.objects.filter(
        document=document, kind=SetKind.GOLD, published_at__isnull=False
    ).exists()


def annotation_sets_for_user(*, user: Any, document: Document) -> QuerySet[AnnotationSet]:
    """Sets of ``document`` the user may see.

    Reviewers and admins see every set. Annotators see their own set, plus machine
    suggestions (they correct them); other annotators' sets and the gold set only
    once the gold set is published, so they are not influenced while annotating.
    """
    qs = document.annotation_sets.select_related("annotator").annotate(span_count=Count("spans"))
    role = project_role(user=user, project=document.project_id)
    if role in (Role.REVIEWER, Role.ADMIN):
        return qs
    if role != Role.ANNOTATOR:
        return qs.none()
    if gold_published(document=document):
        return qs
    return qs.filter(Q(annotator=user) | Q(kind=SetKind.MACHINE))


def annotator_set_allowed(*, user: Any, document: Document) -> bool:
    """Whether the user may have an annotator set of ``document`` (the editor's "mine").

    Annotators may, on the documents they see. Reviewers and admins only when the
    document is assigned to them or they already own a set there (e.g. an imported
    one): a reviewer who opens a document to look at it must never become one of
    its annotators, since that set would then count in review and agreement.
    """
    role = project_role(user=user, project=document.project_id)
    if role == Role.ANNOTATOR:
        return True
    if role not in (Role.REVIEWER, Role.ADMIN):
        return False
    return (
        Assignment.objects.filter(document=document, user=user).exists()
        or document.annotation_sets.filter(kind=SetKind.HUMAN, annotator=user).exists()
    )


def annotation_set_visible(*, user: Any, annotation_set: AnnotationSet) -> bool:
    return (
        annotation_sets_for_user(user=user, document=annotation_set.document)
        .filter(pk=annotation_set.pk)
        .exists()
    )


def annotation_set_editable(*, user: Any, annotation_set: AnnotationSet) -> bool:
    """Annotators edit their own set; reviewers and admins edit gold sets too."""
    role = project_role(user=user, project=annotation_set.document.project_id)
    return annotation_set_editable_in_role(user=user, annotation_set=annotation_set, role=role)


def annotation_set_editable_in_role(
    *, user: Any, annotation_set: AnnotationSet, role: str | None
) -> bool:
    """:func:`annotation_set_editable` for a caller that already knows the user's role
    in the set's project (one query for a page of sets instead of one per set)."""
    if annotation_set.kind == SetKind.HUMAN:
        return annotation_set.annotator_id == user.pk and role is not None
    if annotation_set.kind == SetKind.GOLD:
        return role in (Role.REVIEWER, Role.ADMIN)
    return False


def project_list(*, user: Any) -> QuerySet[Project]:
    return projects_for_user(user=user).order_by("name", "id")


def document_list(
    *, user: Any, project: Project, status: str | None = None, split: str | None = None
) -> QuerySet[Document]:
    """The project's documents the user may see, in file order, optionally filtered."""
    documents = documents_for_user(user=user, project=project)
    if status is not None:
        documents = documents.filter(status=status)
    if split is not None:
        documents = documents.filter(split=split)
    return documents.order_by("position", "id")
