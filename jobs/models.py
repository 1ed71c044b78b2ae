"""Background jobs and trained model versions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class JobKind(models.TextChoices):
    IMPORT = "import", "Import documents"
    PREANNOTATE = "preannotate", "Pre-annotate"
    TRAIN_RECOGNIZER = "train_recognizer", "Train recognizer"
    KB_IMPORT = "kb_import", "Import knowledge base"
    DISTANT_LABEL = "distant_label", "Distant labelling"
    TRAIN_MASKER = "train_masker", "Train masking tagger"


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED_STATUSES = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


class Job(models.Model):
    kind = models.CharField(max_length=32, choices=JobKind.choices)
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
    attempts = models.PositiveIntegerField(default=0)
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


class ModelKind(models.TextChoices):
    RECOGNIZER = "recognizer", "Entity recognizer"
    MASKER = "masker", "Masking tagger"
    RISK_CLASSIFIER = "risk_classifier", "Risk classifier"
    REIDENTIFIER = "reidentifier", "Re-identification model"


class ModelVersion(models.Model):
    kind = models.CharField(max_length=32, choices=ModelKind.choices)
    project = models.ForeignKey(
        "annotation.Project",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="model_versions",
        help_text="Empty for models shared by all projects.",
    )
    name = models.CharField(max_length=200)
    version = models.CharField(max_length=100)
    base_model = models.CharField(max_length=500, blank=True)
    artefact_path = models.CharField(max_length=1000, blank=True)
    config = models.JSONField(default=dict, blank=True)
    training_summary = models.JSONField(default=dict, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    is_active = models.BooleanField(default=False)
    job = models.ForeignKey(Job, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="modelversion_unique"),
            models.UniqueConstraint(
                fields=["kind", "project"],
                condition=Q(is_active=True, project__isnull=False),
                name="modelversion_one_active_per_project",
            ),
            # NULL project ids are distinct in a unique index, hence a second rule.
            models.UniqueConstraint(
                fields=["kind"],
                condition=Q(is_active=True, project__isnull=True),
                name="modelversion_one_active_shared",
            ),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"
