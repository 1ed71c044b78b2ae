"""Who may reach which object through the API.

One rule decides between 404 and 403: an object in a project the user does not
belong to answers 404, so the API never confirms that it exists; inside the user's
own projects an operation the role does not allow answers 403. The visibility
rules themselves live in ``annotation.selectors``; this module only maps them to
HTTP answers.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from rest_framework.exceptions import NotFound, PermissionDenied

from annotation import selectors
from annotation.models import AnnotationSet, Document, Project, Role, Span
from jobs.models import Job

ANY_ROLE: frozenset[str] = frozenset(Role.values)
REVIEWER_ROLES: frozenset[str] = frozenset({Role.REVIEWER, Role.ADMIN})
ADMIN_ROLES: frozenset[str] = frozenset({Role.ADMIN})


def role_or_404(*, user: Any, project_id: int | None) -> str:
    """The user's role in the project; 404 when there is none (or no project)."""
    role = None if project_id is None else selectors.project_role(user=user, project=project_id)
    if role is None:
        raise NotFound()
    return role


def require_role(*, role: str, allowed: Collection[str], action: str) -> None:
    if role not in allowed:
        raise PermissionDenied(f"your role ({role}) may not {action}")


def project_for_user(
    *, user: Any, project_id: int, roles: Collection[str] = ANY_ROLE, action: str = ""
) -> Project:
    project = selectors.project_get(project_id=project_id)
    role = role_or_404(user=user, project_id=project.pk if project else None)
    require_role(role=role, allowed=roles, action=action or "do this in the project")
    assert project is not None
    return project


def project_filter_for_user(
    *, user: Any, project_id: int | None, roles: Collection[str] = ANY_ROLE, action: str = ""
) -> Project | None:
    """The project a list is filtered by (``?project=``), checked like any project
    access; None when the list is not filtered."""
    if project_id is None:
        return None
    return project_for_user(user=user, project_id=project_id, roles=roles, action=action)


def document_for_user(
    *, user: Any, document_id: int, roles: Collection[str] = ANY_ROLE, action: str = ""
) -> Document:
    document = selectors.document_get(document_id=document_id)
    role = role_or_404(user=user, project_id=document.project.pk if document else None)
    assert document is not None
    if not selectors.document_visible(user=user, document=document):
        raise PermissionDenied("the document is not assigned to you")
    require_role(role=role, allowed=roles, action=action or "do this with the document")
    return document


def annotation_set_for_user(*, user: Any, annotation_set_id: int) -> AnnotationSet:
    """A set the user may read: its document is visible and so is the set itself
    (annotators see other annotators' sets and the gold set only after publication)."""
    annotation_set = selectors.annotation_set_get(annotation_set_id=annotation_set_id)
    document_for_user(user=user, document_id=annotation_set.document.pk if annotation_set else 0)
    assert annotation_set is not None
    if not selectors.annotation_set_visible(user=user, annotation_set=annotation_set):
        raise PermissionDenied("this annotation set is not visible to you yet")
    return annotation_set


def editable_annotation_set_for_user(*, user: Any, annotation_set_id: int) -> AnnotationSet:
    annotation_set = annotation_set_for_user(user=user, annotation_set_id=annotation_set_id)
    ensure_editable(user=user, annotation_set=annotation_set)
    return annotation_set


def ensure_editable(*, user: Any, annotation_set: AnnotationSet) -> None:
    if not selectors.annotation_set_editable(user=user, annotation_set=annotation_set):
        raise PermissionDenied("you may not change this annotation set")


def span_for_user(*, user: Any, span_id: int) -> Span:
    span = selectors.span_get(span_id=span_id)
    # The set check answers 404/403 exactly as for the set itself.
    annotation_set = annotation_set_for_user(
        user=user, annotation_set_id=span.annotation_set.pk if span else 0
    )
    assert span is not None
    span.annotation_set = annotation_set
    return span


def span_history_set_for_user(*, user: Any, span_key: int) -> AnnotationSet:
    """The set a span belongs (or, once deleted, belonged) to, if the user may read it."""
    set_id = selectors.span_history_set_id(span_key=span_key)
    return annotation_set_for_user(user=user, annotation_set_id=set_id or 0)


def is_staff(user: Any) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.is_superuser))


def job_for_user(*, user: Any, job_id: int, action: str) -> Job:
    """A job of a project the user administers; jobs without a project are staff's."""
    job = selectors.job_get(job_id=job_id)
    if job is not None and job.project is None:
        if not is_staff(user):
            raise NotFound()
        return job
    role = role_or_404(user=user, project_id=job.project.pk if job and job.project else None)
    require_role(role=role, allowed=ADMIN_ROLES, action=action)
    assert job is not None
    return job
