"""A document's stored risk assessment: what the dial re-filters and re-solves."""

from __future__ import annotations

from django.db import models

from annotation.models import Document


class RiskAssessment(models.Model):
    """Entities and scored risky combinations of one document, as one assessment found them.

    ``data`` holds ``entities`` ([{id, label, identifier_type, ic, peak, mentions, text}]),
    ``combinations`` ([{measure, entity_ids, score, text}], raw scores, the ``lm`` ones
    left out: they are re-derived from the entities' ``peak`` for any threshold) and
    ``person``/``person_entity``. The newest row of a document is the one that counts.
    """

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="risk_assessments"
    )
    # Recognizer, measures and scorer versions: which assessment a mask came from.
    version = models.CharField(max_length=500)
    settings = models.JSONField(default=dict, blank=True)
    data = models.JSONField(default=dict, blank=True)
    job = models.ForeignKey(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["document", "-created_at"], name="risk_doc_created")]

    def __str__(self) -> str:
        return f"risk assessment of document {self.document_id} ({self.version})"
