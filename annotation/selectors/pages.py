"""Reads behind the server-rendered pages (frontend.views): the home page's queues
and the admin page's document table, so that the page views run no query."""

from __future__ import annotations

from typing import Any

from annotation.models import AnnotationSet, Document, Project, Role, SetKind
from annotation.selectors.access import documents_for_user, project_role, projects_for_user
from annotation.selectors.documents import annotator_queue

MY_STATUS_LABELS = {
    "new": "Not started",
    "in_progress": "In progress",
    "submitted": "Submitted",
    "reviewed": "Reviewed",
}


def home_projects(*, user: Any) -> list[dict[str, Any]]:
    """Each project of the user with their role and the documents they see.

    Annotators see their queue, each document marked with *their own* progress (others
    may be done with it); reviewers and admins see every document of the project.
    """
    projects = []
    for project in projects_for_user(user=user):
        role = project_role(user=user, project=project)
        documents: Any
        if role == Role.ANNOTATOR:
            documents = list(annotator_queue(user=user, project=project))
            own = dict(
                AnnotationSet.objects.filter(
                    annotator=user, kind=SetKind.HUMAN, document__in=documents
                ).values_list("document_id", "status")
            )
            for document in documents:
                status = own.get(document.pk, "new")
                setattr(document, "my_status", status)  # noqa: B010
                setattr(document, "my_status_label", MY_STATUS_LABELS.get(status, ""))  # noqa: B010
        else:
            documents = documents_for_user(user=user, project=project)
        projects.append({"project": project, "role": role, "documents": documents})
    return projects


def project_document_table(*, project: Project) -> list[dict[str, Any]]:
    """The admin page's document rows: id, external id, status and assignees."""
    documents = Document.objects.filter(project=project).prefetch_related("assignments__user")
    return [
        {
            "id": d.pk,
            "external_id": d.external_id,
            "status": d.status,
            "assignees": sorted(a.user.get_username() for a in d.assignments.all()),
        }
        for d in documents.order_by("position", "id")
    ]
