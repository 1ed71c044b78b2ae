"""Reads behind the server-rendered pages (frontend.views): the home page's queues
and the admin page's document table, so that the page views run no query."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.db.models.functions import Length

from annotation.models import AnnotationSet, Document, Project, Role, SetKind
from annotation.selectors.access import documents_for_user, project_role, projects_for_user
from annotation.selectors.documents import annotator_queue

MY_STATUS_LABELS = {
    "new": "Not started",
    "in_progress": "In progress",
    "submitted": "Submitted",
    "reviewed": "Reviewed",
}


# The home page is paged: a superuser sees every project, and listing every document
# of every project in one response grew to 39 MB.
HOME_PROJECTS_PER_PAGE = 20
HOME_DOCUMENTS_PER_PAGE = 100


@dataclass(frozen=True)
class HomePage:
    projects: Page[Project]
    # One entry per project of the page: project, role, documents (the page's rows)
    # and documents_page (its Page: number, count, has_next ...).
    entries: list[dict[str, Any]]


def home_projects(
    *,
    user: Any,
    page: Any = 1,
    document_pages: Mapping[int, Any] | None = None,
) -> HomePage:
    """A page of the user's projects, each with their role and a page of the documents
    they see (``document_pages`` maps a project id to the page wanted, default 1).

    Annotators see their queue, each document marked with *their own* progress (others
    may be done with it); reviewers and admins see every document of the project.
    Document text is not loaded: the table shows its length only.
    """
    document_pages = document_pages or {}
    projects = Paginator(
        projects_for_user(user=user).order_by("name", "id"), HOME_PROJECTS_PER_PAGE
    )
    projects_page = projects.get_page(page)
    entries = []
    for project in projects_page.object_list:
        role = project_role(user=user, project=project)
        queryset: QuerySet[Document] = (
            annotator_queue(user=user, project=project)
            if role == Role.ANNOTATOR
            else documents_for_user(user=user, project=project).order_by("position", "id")
        )
        queryset = queryset.defer("text").annotate(chars=Length("text"))
        documents_page = Paginator(queryset, HOME_DOCUMENTS_PER_PAGE).get_page(
            document_pages.get(project.pk, 1)
        )
        documents = list(documents_page.object_list)
        if role == Role.ANNOTATOR:
            own = dict(
                AnnotationSet.objects.filter(
                    annotator=user, kind=SetKind.HUMAN, document__in=documents
                ).values_list("document_id", "status")
            )
            for document in documents:
                status = own.get(document.pk, "new")
                setattr(document, "my_status", status)  # noqa: B010
                setattr(document, "my_status_label", MY_STATUS_LABELS.get(status, ""))  # noqa: B010
        entries.append(
            {
                "project": project,
                "role": role,
                "documents": documents,
                "documents_page": documents_page,
            }
        )
    return HomePage(projects=projects_page, entries=entries)


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
