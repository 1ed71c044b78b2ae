"""Reads: the jobs and model versions a user may see."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from annotation.models import Membership, Role
from jobs.models import Job, ModelVersion


def jobs_for_user(*, user: Any, project: Any = None) -> QuerySet[Job]:
    """Jobs of the projects the user administers; superusers see every job,
    staff also see jobs that belong to no project (shared models)."""
    qs = Job.objects.select_related("project", "created_by")
    if project is not None:
        qs = qs.filter(project=project)
    if user.is_superuser:
        return qs
    administered = Membership.objects.filter(user=user, role=Role.ADMIN).values("project_id")
    visible = Q(project_id__in=administered)
    if user.is_staff:
        visible |= Q(project__isnull=True)
    return qs.filter(visible)


def model_versions_for_user(*, user: Any, project: Any = None) -> QuerySet[ModelVersion]:
    """Shared model versions plus those of the user's projects."""
    qs = ModelVersion.objects.select_related("project")
    if project is not None:
        qs = qs.filter(project=project)
    if user.is_superuser:
        return qs
    member_of = Membership.objects.filter(user=user).values("project_id")
    return qs.filter(Q(project__isnull=True) | Q(project_id__in=member_of))
