"""Knowledge bases: what an adversary is assumed to know about people.

The data itself (inverted index and gazetteer) lives on disk under ``index_dir``;
the row records where, how it was built and how big it is.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class KbFormat(models.TextChoices):
    JSONL = "jsonl", "JSONL profiles"
    WIKIDATA = "wikidata", "Wikidata JSON dump"


class KbStatus(models.TextChoices):
    BUILDING = "building", "Building"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class KnowledgeBase(models.Model):
    name = models.CharField(max_length=200)
    project = models.ForeignKey(
        "annotation.Project",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="knowledge_bases",
        help_text="Empty for knowledge bases shared by all projects.",
    )
    source_format = models.CharField(max_length=16, choices=KbFormat.choices)
    source_path = models.CharField(max_length=1000)
    index_dir = models.CharField(max_length=1000, blank=True)
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=KbStatus.choices, default=KbStatus.BUILDING)
    n_persons = models.PositiveBigIntegerField(default=0)
    n_terms = models.PositiveBigIntegerField(default=0)
    index_bytes = models.PositiveBigIntegerField(default=0)
    job = models.ForeignKey(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    built_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.n_persons} people)"
