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


class JobChunk(models.Model):
    """One slice of a job that fans out over every worker of its queue (a Celery group).

    The parent Job stays the single thing users see: its progress is the sum of its
    chunks', a cancellation of the job stops every chunk, and the chunk that finishes
    last, in the same transaction, merges the results and finishes the job. Each chunk
    counts its own runs and heartbeats, so one chunk whose worker died is re-queued
    (jobs.janitor) without re-running the others.
    """

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    # What narrows the job to this chunk (e.g. {"document_ids": [...]}).
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    progress_done = models.PositiveBigIntegerField(default=0)
    progress_total = models.PositiveBigIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    celery_task_id = models.CharField(max_length=255, blank=True)
    # The Celery worker (node name) that ran it last: shows how work spread.
    worker = models.CharField(max_length=255, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="job_chunk_unique_index"),
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of job #{self.job_id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED_STATUSES
