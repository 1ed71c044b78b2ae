"""Which knowledge-base profile a document is about: the person its rank protects."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models import Document
from knowledge.models import KnowledgeBase

# A profile id is a knowledge-base key (Wikidata Q-ids, generated ids): short.
PROFILE_ID_MAX = 200


class TargetSource(models.TextChoices):
    IMPORT = "import", "Imported"
    UI = "ui", "Chosen in the editor"


class ReidTarget(models.Model):
    """The document's person as a profile of a knowledge base.

    An imported ``target`` stays in ``Document.meta["target"]`` (resolved against the
    project's newest ready knowledge base); a row here, chosen in the editor, overrides it
    and names its knowledge base.
    """

    document = models.OneToOneField(Document, on_delete=models.CASCADE, related_name="reid_target")
    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="reid_targets"
    )
    profile_id = models.CharField(max_length=PROFILE_ID_MAX)
    source = models.CharField(max_length=8, choices=TargetSource.choices, default=TargetSource.UI)
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["document_id"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(profile_id=""), name="reidtarget_profile_id_not_empty"
            ),
            models.CheckConstraint(
                condition=models.Q(source__in=TargetSource.values), name="reidtarget_source_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"target of document {self.document_id}: {self.profile_id}"
