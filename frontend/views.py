"""Server-rendered pages; the interactive parts talk to the REST API."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotation.models import Role
from annotation.selectors import (
    annotator_queue,
    documents_for_user,
    project_role,
    projects_for_user,
)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    projects = []
    for project in projects_for_user(user=request.user):
        role = project_role(user=request.user, project=project)
        if role == Role.ANNOTATOR:
            documents = annotator_queue(user=request.user, project=project)
        else:
            documents = documents_for_user(user=request.user, project=project)
        projects.append({"project": project, "role": role, "documents": documents})
    return render(request, "frontend/home.html", {"projects": projects})
