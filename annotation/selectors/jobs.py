"""Reads: the jobs a user may see (jobs belong to project admins)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from annotation.models import Membership, Role
from jobs.models import Job


def job_get(*, job_id: int) -> Job | None:
    return Job.objects.select_related("project", "created_by").filter(pk=job_id).first()


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


def job_list(
    *, user: Any, project: Any = None, status: str | None = None, kind: str | None = None
) -> QuerySet[Job]:
    jobs = jobs_for_user(user=user, project=project)
    if status is not None:
        jobs = jobs.filter(status=status)
    if kind is not None:
        jobs = jobs.filter(kind=kind)
    return jobs
