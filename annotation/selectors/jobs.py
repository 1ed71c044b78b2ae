"""Reads: the jobs a user may see (jobs belong to project admins)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from annotation.models import Membership, Role
from jobs.models import Job, JobStatus


def _with_chunk_counts(jobs: QuerySet[Job]) -> QuerySet[Job]:
    """Count each job's chunks by status, and the workers that ran them (a job that
    did not fan out has none): the job API shows how the work spread."""
    counts = {
        f"chunks_{status}": Count("chunks", filter=Q(chunks__status=status))
        for status in JobStatus.values
    }
    return jobs.annotate(
        chunks_total=Count("chunks"),
        chunks_workers=Count("chunks__worker", filter=~Q(chunks__worker=""), distinct=True),
        **counts,
    )


def job_get(*, job_id: int) -> Job | None:
    jobs = Job.objects.select_related("project", "created_by").filter(pk=job_id)
    return _with_chunk_counts(jobs).first()


def jobs_for_user(*, user: Any, project: Any = None) -> QuerySet[Job]:
    """Jobs of the projects the user administers; superusers see every job,
    staff also see jobs that belong to no project (shared models)."""
    qs = _with_chunk_counts(Job.objects.select_related("project", "created_by"))
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
