"""Projects, documents, annotation sets, spans and their audit trail.

Writes go through ``annotation.services``; models hold data and constraints only.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from sanitizer.types import CONFIDENTIAL_STATUSES, IDENTIFIER_TYPES, SEMANTIC_TYPES

# Document.meta key holding TAB's unknown top-level keys for export; imports refuse it.
TAB_EXTRA_KEY = "_tab_extra"


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    REVIEWER = "reviewer", "Reviewer"
    ADMIN = "admin", "Admin"


def _vocabulary(name: str, values: tuple[str, ...]) -> type[models.TextChoices]:
    """Choices over one of the library's vocabularies (``sanitizer.types``), the single
    list of these names; labels as Django derives them (``NO_MASK`` -> "No Mask")."""
    return models.TextChoices(name, [(value, value) for value in values])  # type: ignore[call-overload]


SemanticType = _vocabulary("SemanticType", SEMANTIC_TYPES)
IdentifierType = _vocabulary("IdentifierType", IDENTIFIER_TYPES)
ConfidentialStatus = _vocabulary("ConfidentialStatus", CONFIDENTIAL_STATUSES)


class Split(models.TextChoices):
    TRAIN = "train"
    DEV = "dev"
    TEST = "test"
    NONE = "none"


class Project(models.Model):
    # Unique per creator, not across the site: a global check would tell anyone who
    # tries a name that some project (of other people) already carries it.
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Annotation guidelines (Markdown).")
    k_anonymity = models.PositiveIntegerField(default=5)
    risk_threshold = models.FloatField(
        default=0.5, help_text="Spans scoring above this risk are proposed for masking."
    )
    privacy_settings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="projects"
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            # Projects made by commands (no creator) share one namespace: NULLS NOT DISTINCT.
            models.UniqueConstraint(
                fields=["created_by", "name"],
                nulls_distinct=False,
                name="project_unique_name_per_creator",
            ),
            models.CheckConstraint(condition=Q(k_anonymity__gte=1), name="project_k_at_least_one"),
            models.CheckConstraint(
                condition=Q(risk_threshold__gte=0) & Q(risk_threshold__lte=1),
                name="project_risk_threshold_unit_interval",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANNOTATOR)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="membership_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} as {self.role}"


class InvitationStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"


class Invitation(models.Model):
    """An offer of membership: the Membership row exists only once the invitee accepts,
    so nobody is put into a project (and shown its documents) without consent."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANNOTATOR)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(
        max_length=16, choices=InvitationStatus.choices, default=InvitationStatus.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)
    responded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "user"],
                condition=Q(status="pending"),
                name="invitation_one_pending_per_user",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} invited to {self.project} as {self.role} ({self.status})"


class DocumentStatus(models.TextChoices):
    NEW = "new", "New"
    IN_PROGRESS = "in_progress", "In progress"
    ANNOTATED = "annotated", "Annotated"
    ADJUDICATED = "adjudicated", "Adjudicated"


class Document(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="documents")
    external_id = models.CharField(max_length=255)
    # Immutable once any span points into it: services refuse to change it then,
    # because every stored offset would silently shift.
    text = models.TextField()
    meta = models.JSONField(default=dict, blank=True)
    task = models.TextField(blank=True, help_text="TAB's task line, kept for round trips.")
    split = models.CharField(max_length=8, choices=Split.choices, default=Split.NONE)
    target_person = models.CharField(max_length=500, blank=True)
    status = models.CharField(
        max_length=16, choices=DocumentStatus.choices, default=DocumentStatus.NEW
    )
    position = models.PositiveIntegerField(default=0, help_text="Order within the import.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"], name="document_unique_external_id"
            ),
        ]
        indexes = [models.Index(fields=["project", "status"])]

    def __str__(self) -> str:
        return self.external_id


class Assignment(models.Model):
    """A document placed in an annotator's queue."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="assignments")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["document__position", "document_id"]
        constraints = [
            models.UniqueConstraint(fields=["document", "user"], name="assignment_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id} → {self.user_id}"


class SetKind(models.TextChoices):
    HUMAN = "human", "Human annotation"
    MACHINE = "machine", "Machine run"
    GOLD = "gold", "Gold (adjudicated)"


class SetSource(models.TextChoices):
    MANUAL = "manual", "Manual"
    IMPORT = "import", "Imported"
    PREANNOTATION = "preannotation", "Pre-annotation"
    MODEL = "model", "Trained model"
    DISTANT = "distant", "Distant labelling"
    MASKING = "masking", "Masking solver"
    ADJUDICATION = "adjudication", "Adjudication"


class SetStatus(models.TextChoices):
    IN_PROGRESS = "in_progress", "In progress"
    SUBMITTED = "submitted", "Submitted"
    REVIEWED = "reviewed", "Reviewed"


class CurrentSetManager(models.Manager["AnnotationSet"]):
    """Sets in use: a machine run replaced by a newer run of its kind (``superseded_at``)
    stays in the table as history but is left out of every default read (editor,
    review, agreement, exports), so its suggestions are never shown or counted twice.
    ``AnnotationSet.history`` reaches every set."""

    def get_queryset(self) -> models.QuerySet[AnnotationSet]:
        return super().get_queryset().filter(superseded_at__isnull=True)


class AnnotationSet(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="annotation_sets")
    kind = models.CharField(max_length=8, choices=SetKind.choices)
    source = models.CharField(max_length=16, choices=SetSource.choices, default=SetSource.MANUAL)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="annotation_sets",
        help_text="The human owner; empty for machine runs.",
    )
    # For machine runs: what produced the spans, so every prediction can be traced.
    source_name = models.CharField(max_length=255, blank=True)
    source_version = models.CharField(max_length=1000, blank=True)
    model_version = models.ForeignKey(
        "ml.ModelVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    job = models.ForeignKey(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    parameters = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=SetStatus.choices, default=SetStatus.IN_PROGRESS
    )
    quality_checked = models.BooleanField(default=False)
    published_at = models.DateTimeField(
        null=True, blank=True, help_text="Gold only: when annotators may see it."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    superseded_at = models.DateTimeField(
        null=True, blank=True, help_text="Machine runs: when a newer run of the kind replaced it."
    )

    history = models.Manager()  # every set, superseded machine runs included
    objects = CurrentSetManager()

    class Meta:
        # The default manager is also behind ``document.annotation_sets``.
        default_manager_name = "objects"
        ordering = ["document_id", "kind", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "annotator"],
                condition=Q(kind="human"),
                name="annotationset_one_per_annotator",
            ),
            models.UniqueConstraint(
                fields=["document"], condition=Q(kind="gold"), name="annotationset_one_gold"
            ),
            models.CheckConstraint(
                condition=~Q(kind="human") | Q(annotator__isnull=False),
                name="annotationset_human_has_annotator",
            ),
            models.CheckConstraint(
                condition=~Q(kind="machine") | Q(annotator__isnull=True),
                name="annotationset_machine_has_no_annotator",
            ),
        ]

    def __str__(self) -> str:
        who = self.annotator or self.source_name or self.source
        return f"{self.kind} set of {self.document_id} by {who}"


class Span(models.Model):
    annotation_set = models.ForeignKey(
        AnnotationSet, on_delete=models.CASCADE, related_name="spans"
    )
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.TextField(help_text="Must equal document.text[start:end].")
    entity_type = models.CharField(max_length=16, choices=SemanticType.choices)
    identifier_type = models.CharField(
        max_length=8, choices=IdentifierType.choices, default="QUASI"
    )
    confidential_status = models.CharField(
        max_length=20,
        choices=ConfidentialStatus.choices,
        default="NOT_CONFIDENTIAL",
    )
    entity_id = models.CharField(
        max_length=255, blank=True, help_text="Links co-referent mentions."
    )
    mention_id = models.CharField(max_length=255, blank=True, help_text="TAB entity_mention_id.")
    confidence = models.FloatField(null=True, blank=True)
    note = models.TextField(blank=True)
    # TAB fields carried for round trips (edit_type, related_mentions) and machine
    # explanations (e.g. the k-anonymity combination that forced a mask).
    attrs = models.JSONField(default=dict, blank=True)
    # Optimistic concurrency: a write must carry the version it read.
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["annotation_set_id", "start", "end", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(end__gt=models.F("start")), name="span_start_before_end"
            ),
            models.CheckConstraint(
                condition=Q(confidence__isnull=True)
                | (Q(confidence__gte=0) & Q(confidence__lte=1)),
                name="span_confidence_unit_interval",
            ),
            # One decision per stretch of text and set: services merge duplicates
            # (the strongest decision wins), migration 0004 merged existing ones.
            models.UniqueConstraint(
                fields=["annotation_set", "start", "end"], name="span_unique_offsets"
            ),
        ]
        indexes = [models.Index(fields=["annotation_set", "start"])]

    def __str__(self) -> str:
        return f"{self.entity_type} {self.start}-{self.end} {self.text!r}"

    def clean(self) -> None:
        # Cross-table invariant the database cannot express.
        document_text = self.annotation_set.document.text
        if self.end > len(document_text):
            raise ValidationError({"end": f"offset {self.end} is past the end of the text"})
        if self.start >= self.end:
            raise ValidationError({"start": "start must be before end"})
        if document_text[self.start : self.end] != self.text:
            raise ValidationError(
                {"text": f"span text {self.text!r} differs from the document text at its offsets"}
            )


class SpanAction(models.TextChoices):
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"


class SpanEvent(models.Model):
    """Audit trail: one row per span change, kept after the span is deleted."""

    span = models.ForeignKey(
        Span, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    span_key = models.BigIntegerField(help_text="The span id, kept after deletion.")
    annotation_set = models.ForeignKey(
        AnnotationSet, on_delete=models.CASCADE, related_name="span_events"
    )
    action = models.CharField(max_length=8, choices=SpanAction.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["span_key"])]

    def __str__(self) -> str:
        return f"{self.action} span {self.span_key} at {self.at:%Y-%m-%d %H:%M}"
