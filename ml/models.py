"""Trained model versions: what a model is, where its files are, whether it is in use."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class ModelKind(models.TextChoices):
    RECOGNIZER = "recognizer", "Entity recognizer"
    MASKER = "masker", "Masking tagger"
    RISK_CLASSIFIER = "risk_classifier", "Risk classifier"
    REIDENTIFIER = "reidentifier", "Re-identification model"
    MASKED_LM = "masked_lm", "Masked language model"


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
    # Set by the erasure app when documents or decisions this model may have learnt from
    # were erased but others remain (a model trained only on erased data is deleted).
    trained_on_erased_data_at = models.DateTimeField(
        null=True, blank=True, help_text="When data this model was trained on was erased."
    )
    # The ids of the documents whose text or decisions the training read (train and the
    # dev documents that chose the kept checkpoint), sorted; the erasure app uses it to
    # tell which models an erased document reached. None: not known (registered from a
    # path, trained by a command on shared data, or registered before it was recorded).
    trained_on_documents = models.JSONField(
        null=True,
        blank=True,
        help_text="Ids of the documents the training read; null when not known.",
    )
    job = models.ForeignKey(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table was created by the jobs app; the model moved here without a copy.
        db_table = "jobs_modelversion"
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
