"""Background jobs: one row per piece of background work."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED_STATUSES = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


class Job(models.Model):
    # A kind registered in jobs.kinds (checked by job_create), not a fixed choice list.
    kind = models.CharField(max_length=32)
    project = models.ForeignKey(
        "annotation.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    progress_done = models.PositiveBigIntegerField(default=0)
    progress_total = models.PositiveBigIntegerField(default=0)
    log_tail = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    queue = models.CharField(max_length=16, default="cpu")
    celery_task_id = models.CharField(max_length=255, blank=True)
    # Runs started (job_start): a worker that dies mid-run leaves no outcome, so the
    # count, written before the work, is what bounds a crash loop.
    attempts = models.PositiveIntegerField(default=0)
    # The last sign of life of a running job (or when a queued job was sent): the
    # janitor re-queues a job whose worker vanished (jobs.services.jobs_janitor).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(progress_total=0) | Q(progress_done__lte=models.F("progress_total")),
                name="job_progress_within_total",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED_STATUSES
