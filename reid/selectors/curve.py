"""Reads: the project's latest re-identification curve (a finished ``reid_curve`` job)."""

from __future__ import annotations

from typing import Any

from annotation.models import Project
from jobs.models import Job, JobStatus
from reid.validators import REID_CURVE


def project_reid_curve(*, project: Project) -> dict[str, Any] | None:
    """The points of the project's newest succeeded ``reid_curve`` job, or None."""
    job = (
        Job.objects.filter(project=project, kind=REID_CURVE, status=JobStatus.SUCCEEDED)
        .order_by("-finished_at", "-id")
        .first()
    )
    if job is None:
        return None
    result = job.result if isinstance(job.result, dict) else {}
    points = result.get("points")
    return {
        "points": points if isinstance(points, list) else [],
        "job": job.pk,
        "created_at": job.finished_at or job.created_at,
    }
