"""The audit record an erasure leaves behind.

An erasure removes personal data, so its record must not keep any: it names the erased
object by kind and id only (no document text, external id, project name or username),
counts what went, lists the ids of the models deleted or marked and the jobs cancelled,
and says who erased it, when and why (the admin's reason, which the forms ask not to
name people). File removal happens after the database commit; the record says how many
files were due and, once done, how many went and how many could not be removed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

REASON_MAX_CHARS = 1000
# The username an erased account keeps (its data is gone, the row stays).
ERASED_USERNAME_PREFIX = "erased-user-"


class ErasureKind(models.TextChoices):
    DOCUMENT = "document", "Document"
    PROJECT = "project", "Project"
    USER = "user", "User data"


class ErasureRecord(models.Model):
    kind = models.CharField(max_length=16, choices=ErasureKind.choices)
    # Plain ids, not foreign keys: the object is gone (or, for a user, anonymised).
    object_id = models.BigIntegerField()
    project_id = models.BigIntegerField(
        null=True, blank=True, help_text="The project a document belonged to, or the project."
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField(max_length=REASON_MAX_CHARS)
    created_at = models.DateTimeField(auto_now_add=True)
    # Counts of removed rows by what they were, e.g. {"documents": 1, "spans": 12}.
    removed = models.JSONField(default=dict, blank=True)
    models_deleted = models.JSONField(default=list, blank=True, help_text="ModelVersion ids.")
    models_marked = models.JSONField(default=list, blank=True, help_text="ModelVersion ids.")
    jobs_cancelled = models.JSONField(default=list, blank=True, help_text="Job ids.")
    files_scheduled = models.PositiveIntegerField(default=0)
    files_removed = models.PositiveIntegerField(default=0)
    files_failed = models.PositiveIntegerField(default=0)
    files_removed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the files were removed (after the commit)."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["document", "project", "user"]),
                name="erasurerecord_kind_valid",
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="erasurerecord_reason_given"),
        ]
        indexes = [models.Index(fields=["kind", "object_id"])]

    def __str__(self) -> str:
        return f"erasure of {self.kind} #{self.object_id} at {self.created_at:%Y-%m-%d %H:%M}"

    @property
    def label(self) -> str:
        """A non-identifying name of what was erased."""
        if self.kind == ErasureKind.DOCUMENT:
            return f"document #{self.object_id} of project #{self.project_id}"
        if self.kind == ErasureKind.PROJECT:
            return f"project #{self.object_id}"
        return f"data of user #{self.object_id}"
