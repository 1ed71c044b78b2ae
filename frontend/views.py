"""Server-rendered pages; the interactive parts are ES modules talking to the REST API.

Each page gets a small JSON configuration (``json_script``) and loads its module; the
pages check the same visibility rules as the API (404 outside the user's projects,
403 for a role that may not open the page).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from annotation.models import (
    AnnotationSet,
    Document,
    IdentifierType,
    Project,
    Role,
    SemanticType,
    SetKind,
)
from annotation.selectors import (
    annotator_queue,
    documents_for_user,
    project_role,
    projects_for_user,
)

REVIEWER_ROLES = (Role.REVIEWER, Role.ADMIN)
MY_STATUS_LABELS = {
    "new": "Not started",
    "in_progress": "In progress",
    "submitted": "Submitted",
    "reviewed": "Reviewed",
}


def _project(user: Any, project_id: int, roles: tuple[str, ...]) -> tuple[Project, str]:
    project = Project.objects.filter(pk=project_id).first()
    role = project_role(user=user, project=project_id) if project else None
    if project is None or role is None:
        raise Http404("no such project")
    if role not in roles:
        raise PermissionDenied(f"your role ({role}) may not open this page")
    return project, role


def _document(user: Any, document_id: int, roles: tuple[str, ...]) -> tuple[Document, str]:
    document = Document.objects.select_related("project").filter(pk=document_id).first()
    role = project_role(user=user, project=document.project_id) if document else None
    if document is None or role is None:
        raise Http404("no such document")
    if not documents_for_user(user=user, project=document.project).filter(pk=document.pk).exists():
        raise PermissionDenied("the document is not assigned to you")
    if role not in roles:
        raise PermissionDenied(f"your role ({role}) may not open this page")
    return document, role


def _labels() -> dict[str, Any]:
    return {"entity_types": SemanticType.values, "identifier_types": IdentifierType.values}


@login_required
def home(request: HttpRequest) -> HttpResponse:
    user: Any = request.user
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
                # The annotator's own progress, not the document's (others may be done).
                status = own.get(document.pk, "new")
                setattr(document, "my_status", status)  # noqa: B010
                setattr(document, "my_status_label", MY_STATUS_LABELS.get(status, ""))  # noqa: B010
        else:
            documents = documents_for_user(user=user, project=project)
        projects.append({"project": project, "role": role, "documents": documents})
    return render(request, "frontend/home.html", {"projects": projects})


@login_required
def document_annotate(request: HttpRequest, document_id: int) -> HttpResponse:
    document, role = _document(request.user, document_id, tuple(Role.values))
    config = {
        "document_id": document.pk,
        "project_id": document.project_id,
        "role": role,
        "user": request.user.get_username(),
        **_labels(),
    }
    return render(
        request,
        "frontend/annotate.html",
        {"document": document, "role": role, "config": config},
    )


@login_required
def document_review(request: HttpRequest, document_id: int) -> HttpResponse:
    document, role = _document(request.user, document_id, REVIEWER_ROLES)
    config = {
        "document_id": document.pk,
        "project_id": document.project_id,
        "role": role,
        **_labels(),
    }
    return render(
        request, "frontend/review.html", {"document": document, "role": role, "config": config}
    )


@login_required
def project_agreement(request: HttpRequest, project_id: int) -> HttpResponse:
    project, role = _project(request.user, project_id, REVIEWER_ROLES)
    return render(
        request,
        "frontend/agreement.html",
        {"project": project, "role": role, "config": {"project_id": project.pk}},
    )


@login_required
def project_admin(request: HttpRequest, project_id: int) -> HttpResponse:
    project, role = _project(request.user, project_id, (Role.ADMIN,))
    documents = [
        {
            "id": d.pk,
            "external_id": d.external_id,
            "status": d.status,
            "assignees": sorted(a.user.get_username() for a in d.assignments.all()),
        }
        for d in project.documents.prefetch_related("assignments__user").order_by("position", "id")
    ]
    config = {
        "project_id": project.pk,
        "roles": Role.values,
        "documents": documents,
    }
    return render(
        request,
        "frontend/project_admin.html",
        {"project": project, "role": role, "config": config},
    )
