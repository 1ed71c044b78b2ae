"""Writes: every change to projects, documents, annotation sets and spans goes through here.

Functions take keyword-only arguments, validate with ``full_clean`` (or the
equivalent streaming validator for bulk imports), run in one transaction and
record span changes in the audit trail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import (
    TAB_EXTRA_KEY,
    AnnotationSet,
    Assignment,
    Document,
    DocumentStatus,
    Membership,
    Project,
    Role,
    SetKind,
    SetSource,
    SetStatus,
    Span,
    SpanAction,
    SpanEvent,
)
from common.errors import DomainError, StaleVersionError
from sanitizer.formats.tab import DocumentRecord, FormatError, iter_jsonl, iter_tab, iter_text
from sanitizer.types import EntitySpan

User = get_user_model()
UserLike = AbstractBaseUser | AnonymousUser | None
ProgressCallback = Callable[[int, int, str], None]

SPAN_EDITABLE_FIELDS = (
    "start",
    "end",
    "entity_type",
    "identifier_type",
    "confidential_status",
    "entity_id",
    "note",
    "confidence",
)
_IMPORT_BATCH = 2000


def _actor(user: UserLike) -> Any:
    return user if user is not None and user.is_authenticated else None


# --- projects and members -------------------------------------------------------------


@transaction.atomic
def project_create(
    *,
    name: str,
    created_by: UserLike = None,
    description: str = "",
    guidelines: str = "",
    k_anonymity: int = 5,
    risk_threshold: float = 0.5,
    privacy_settings: dict[str, Any] | None = None,
) -> Project:
    project = Project(
        name=name,
        description=description,
        guidelines=guidelines,
        k_anonymity=k_anonymity,
        risk_threshold=risk_threshold,
        privacy_settings=privacy_settings or {},
        created_by=_actor(created_by),
    )
    project.full_clean()
    project.save()
    creator = _actor(created_by)
    if creator is not None:
        Membership.objects.create(project=project, user=creator, role=Role.ADMIN)
    return project


@transaction.atomic
def project_update(*, project: Project, **changes: Any) -> Project:
    allowed = {
        "name",
        "description",
        "guidelines",
        "k_anonymity",
        "risk_threshold",
        "privacy_settings",
    }
    unknown = set(changes) - allowed
    if unknown:
        raise DomainError(f"cannot change {', '.join(sorted(unknown))}")
    for key, value in changes.items():
        setattr(project, key, value)
    project.full_clean()
    project.save()
    return project


@transaction.atomic
def membership_set(*, project: Project, user: Any, role: str) -> Membership:
    membership, _ = Membership.objects.get_or_create(
        project=project, user=user, defaults={"role": role}
    )
    if membership.role != role:
        if (
            membership.role == Role.ADMIN
            and not project.memberships.filter(role=Role.ADMIN).exclude(pk=membership.pk).exists()
        ):
            raise DomainError("a project keeps at least one admin")
        membership.role = role
    membership.full_clean()
    membership.save()
    return membership


@transaction.atomic
def membership_delete(*, membership: Membership) -> None:
    project = membership.project
    if (
        membership.role == Role.ADMIN
        and not project.memberships.filter(role=Role.ADMIN).exclude(pk=membership.pk).exists()
    ):
        raise DomainError("a project keeps at least one admin")
    membership.delete()


# --- documents ------------------------------------------------------------------------


@dataclass
class ImportSummary:
    documents: int = 0
    annotation_sets: int = 0
    spans: int = 0
    users_created: list[str] = field(default_factory=list)
    document_ids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "annotation_sets": self.annotation_sets,
            "spans": self.spans,
            "users_created": self.users_created,
        }


def _records(path: Path, fmt: str, progress: ProgressCallback | None) -> Iterator[DocumentRecord]:
    if fmt == "text":
        yield from iter_text(path)
        return
    total = path.stat().st_size
    with path.open("rb") as stream:
        reader = iter_tab(stream) if fmt == "tab" else iter_jsonl(stream)
        for record in reader:
            yield record
            if progress is not None:
                progress(min(stream.tell(), total), total, "")


IMPORTED_USER_SUFFIX = "@import"


def _annotator_user(name: str, project: Project, created: list[str]) -> Any:
    """The account that owns an imported annotator's set.

    An existing account is reused when it was itself created by an import (inactive)
    or already belongs to the project; a file naming an unrelated active account
    (say ``admin``) or a reserved name (``gold``, ``machine:...``) gets a separate
    ``<name>@import`` account instead, so an import never attaches work to someone's
    real login nor collides with the gold set or machine runs.
    """
    user = User.objects.filter(username=name).first()
    # "gold" and "machine:..." name the gold set and machine runs in exports and
    # agreement tables; a human annotator must not take them over.
    reserved = name == "gold" or name.startswith("machine:")
    if reserved or (
        user is not None
        and user.is_active
        and not Membership.objects.filter(project=project, user=user).exists()
    ):
        name = f"{name}{IMPORTED_USER_SUFFIX}"
        user = User.objects.filter(username=name).first()
    if user is None:
        # TAB annotators are people who never log in here: inactive, no usable password.
        user = User(username=name, is_active=False)
        user.set_unusable_password()
        user.full_clean()
        user.save()
        created.append(name)
    return user


@transaction.atomic
def document_import(
    *,
    project: Project,
    path: Path,
    fmt: str,
    user: UserLike = None,
    progress: ProgressCallback | None = None,
) -> ImportSummary:
    """Import a TAB JSON, JSONL or text file into ``project``, all or nothing.

    The file is streamed and validated document by document; the first problem
    raises :class:`FormatError` (naming the document and mention), which rolls back
    everything this call wrote. Documents whose id already exists in the project are
    rejected the same way.
    """
    if fmt not in ("tab", "jsonl", "text"):
        raise DomainError(f"unknown format {fmt!r}")
    summary = ImportSummary()
    existing = set(project.documents.values_list("external_id", flat=True))
    position = project.documents.count()
    users: dict[str, Any] = {}
    pending_spans: list[Span] = []
    for record in _records(path, fmt, progress):
        if record.doc_id in existing:
            raise FormatError(
                "a document with this id already exists in the project", doc_id=record.doc_id
            )
        document = Document(
            project=project,
            external_id=record.doc_id,
            text=record.text,
            meta=record.meta,
            task=record.task,
            split=record.split,
            target_person=record.target[:500],
            position=position,
            status=DocumentStatus.ANNOTATED if record.annotations else DocumentStatus.NEW,
        )
        document.full_clean(validate_unique=False, validate_constraints=False)
        document.save()
        if record.extra:
            document.meta = {**record.meta, TAB_EXTRA_KEY: record.extra}
            document.save(update_fields=["meta"])
        position += 1
        summary.documents += 1
        summary.document_ids.append(document.pk)
        for annotator, mentions in record.annotations.items():
            if annotator not in users:
                users[annotator] = _annotator_user(annotator, project, summary.users_created)
                Membership.objects.get_or_create(
                    project=project, user=users[annotator], defaults={"role": Role.ANNOTATOR}
                )
            annotation_set = AnnotationSet.objects.create(
                document=document,
                kind=SetKind.HUMAN,
                source=SetSource.IMPORT,
                annotator=users[annotator],
                status=SetStatus.SUBMITTED,
                quality_checked=annotator in record.quality_checked,
                created_by=_actor(user),
                submitted_at=timezone.now(),
            )
            summary.annotation_sets += 1
            # Offsets and values were validated by the reader against this very text.
            pending_spans.extend(
                Span(
                    annotation_set=annotation_set,
                    start=m.start,
                    end=m.end,
                    text=m.span_text,
                    entity_type=m.entity_type,
                    identifier_type=m.identifier_type,
                    confidential_status=m.confidential_status,
                    entity_id=m.entity_id,
                    mention_id=m.mention_id,
                    attrs=m.attrs,
                )
                for m in mentions
            )
            summary.spans += len(mentions)
        if len(pending_spans) >= _IMPORT_BATCH:
            _spans_create_logged(pending_spans, _actor(user))
            pending_spans = []
        existing.add(record.doc_id)
    _spans_create_logged(pending_spans, _actor(user))
    return summary


def _spans_create_logged(spans: list[Span], user: Any) -> None:
    """Insert many spans and their CREATE audit events (imports and machine runs)."""
    Span.objects.bulk_create(spans, batch_size=_IMPORT_BATCH)
    SpanEvent.objects.bulk_create(
        (
            SpanEvent(
                span=span,
                span_key=span.pk,
                annotation_set_id=span.annotation_set_id,
                action=SpanAction.CREATE,
                user=user,
                after=span_snapshot(span),
            )
            for span in spans
        ),
        batch_size=_IMPORT_BATCH,
    )


def _has_spans(document: Document) -> bool:
    return Span.objects.filter(annotation_set__document=document).exists()


@transaction.atomic
def document_update(
    *,
    document: Document,
    text: str | None = None,
    meta: dict[str, Any] | None = None,
    split: str | None = None,
    target_person: str | None = None,
) -> Document:
    document = Document.objects.select_for_update().get(pk=document.pk)
    if text is not None and text != document.text:
        if _has_spans(document):
            raise DomainError("the text of an annotated document cannot change")
        document.text = text
    if meta is not None:
        document.meta = meta
    if split is not None:
        document.split = split
    if target_person is not None:
        document.target_person = target_person
    document.full_clean(validate_unique=False, validate_constraints=False)
    document.save()
    return document


@transaction.atomic
def assignment_create(*, document: Document, user: Any, created_by: UserLike = None) -> Assignment:
    assignment, _ = Assignment.objects.get_or_create(
        document=document, user=user, defaults={"created_by": _actor(created_by)}
    )
    Membership.objects.get_or_create(
        project=document.project, user=user, defaults={"role": Role.ANNOTATOR}
    )
    return assignment


@transaction.atomic
def assignments_round_robin(
    *,
    project: Project,
    document_ids: list[int],
    annotator_ids: list[int],
    overlap: int = 1,
    created_by: UserLike = None,
) -> list[Assignment]:
    """Give every document to ``overlap`` different annotators, taking annotators in
    turn so the load is even; documents and annotators must belong to ``project``."""
    document_ids = list(dict.fromkeys(document_ids))
    annotator_ids = list(dict.fromkeys(annotator_ids))
    if not 1 <= overlap <= len(annotator_ids):
        raise DomainError(f"overlap must be between 1 and {len(annotator_ids)} (the annotators)")
    documents = {d.pk: d for d in Document.objects.filter(project=project, pk__in=document_ids)}
    missing = [pk for pk in document_ids if pk not in documents]
    if missing:
        raise DomainError(f"documents not in the project: {missing}")
    members = {
        m.user_id: m.user
        for m in Membership.objects.filter(
            project=project, user_id__in=annotator_ids
        ).select_related("user")
    }
    outsiders = [pk for pk in annotator_ids if pk not in members]
    if outsiders:
        raise DomainError(f"users not in the project: {outsiders}")
    assignments = []
    cursor = 0
    for document_id in document_ids:
        for _ in range(overlap):
            user = members[annotator_ids[cursor % len(annotator_ids)]]
            cursor += 1
            assignment, _ = Assignment.objects.get_or_create(
                document=documents[document_id],
                user=user,
                defaults={"created_by": _actor(created_by)},
            )
            assignments.append(assignment)
    return assignments


# --- annotation sets ------------------------------------------------------------------


@transaction.atomic
def annotation_set_for_annotator(*, document: Document, user: Any) -> AnnotationSet:
    """The annotator's own set for ``document``, created on first use."""
    annotation_set, created = AnnotationSet.objects.get_or_create(
        document=document,
        kind=SetKind.HUMAN,
        annotator=user,
        defaults={"source": SetSource.MANUAL, "created_by": user},
    )
    if created and document.status == DocumentStatus.NEW:
        Document.objects.filter(pk=document.pk).update(status=DocumentStatus.IN_PROGRESS)
    return annotation_set


@transaction.atomic
def machine_set_create(
    *,
    document: Document,
    source: str,
    source_name: str,
    source_version: str,
    spans: Iterable[EntitySpan],
    parameters: dict[str, Any] | None = None,
    model_version: Any = None,
    job: Any = None,
    created_by: UserLike = None,
) -> AnnotationSet:
    """Store one machine run's spans; every span is traceable to ``source_version``."""
    annotation_set = AnnotationSet(
        document=document,
        kind=SetKind.MACHINE,
        source=source,
        source_name=source_name,
        source_version=source_version,
        parameters=parameters or {},
        model_version=model_version,
        job=job,
        status=SetStatus.SUBMITTED,
        created_by=_actor(created_by),
        submitted_at=timezone.now(),
    )
    annotation_set.full_clean()
    annotation_set.save()
    text = document.text
    rows = []
    for span in spans:
        if span.end > len(text) or text[span.start : span.end] != span.text:
            raise DomainError(f"machine span {span.start}..{span.end} does not match the text")
        rows.append(
            Span(
                annotation_set=annotation_set,
                start=span.start,
                end=span.end,
                text=span.text,
                entity_type=span.label,
                identifier_type=span.identifier_type or "QUASI",
                entity_id=span.entity_id or "",
                confidence=span.confidence,
                attrs={**span.attrs, "source": span.source} if span.source else dict(span.attrs),
            )
        )
    _spans_create_logged(rows, _actor(created_by))
    return annotation_set


@transaction.atomic
def annotation_set_submit(*, annotation_set: AnnotationSet, user: UserLike) -> AnnotationSet:
    annotation_set = AnnotationSet.objects.select_for_update().get(pk=annotation_set.pk)
    if annotation_set.status != SetStatus.IN_PROGRESS:
        raise DomainError(f"the set is already {annotation_set.status}")
    annotation_set.status = SetStatus.SUBMITTED
    annotation_set.submitted_at = timezone.now()
    annotation_set.save(update_fields=["status", "submitted_at", "updated_at"])
    # Lock the document so two annotators submitting at once both see the other's set.
    document = Document.objects.select_for_update().get(pk=annotation_set.document_id)
    if document.status in (DocumentStatus.NEW, DocumentStatus.IN_PROGRESS):
        pending = document.annotation_sets.filter(kind=SetKind.HUMAN, status=SetStatus.IN_PROGRESS)
        if not pending.exists():
            Document.objects.filter(pk=document.pk).update(status=DocumentStatus.ANNOTATED)
    return annotation_set


@transaction.atomic
def gold_set_for_document(*, document: Document, user: UserLike) -> AnnotationSet:
    annotation_set, _ = AnnotationSet.objects.get_or_create(
        document=document,
        kind=SetKind.GOLD,
        defaults={"source": SetSource.ADJUDICATION, "created_by": _actor(user)},
    )
    return annotation_set


@transaction.atomic
def gold_publish(*, document: Document, user: UserLike) -> AnnotationSet:
    """Publish the adjudicated set: from now on annotators of the project may see all sets."""
    gold = (
        AnnotationSet.objects.select_for_update()
        .filter(document=document, kind=SetKind.GOLD)
        .first()
    )
    if gold is None:
        raise DomainError("the document has no gold set to publish")
    now = timezone.now()
    gold.status = SetStatus.REVIEWED
    gold.published_at = now
    gold.reviewed_at = now
    gold.reviewed_by = _actor(user)
    gold.save(update_fields=["status", "published_at", "reviewed_at", "reviewed_by", "updated_at"])
    document.annotation_sets.filter(kind=SetKind.HUMAN).update(
        status=SetStatus.REVIEWED, reviewed_at=now, reviewed_by=_actor(user)
    )
    Document.objects.filter(pk=document.pk).update(status=DocumentStatus.ADJUDICATED)
    return gold


# --- spans ----------------------------------------------------------------------------


def span_snapshot(span: Span) -> dict[str, Any]:
    return {
        "id": span.pk,
        "start": span.start,
        "end": span.end,
        "text": span.text,
        "entity_type": span.entity_type,
        "identifier_type": span.identifier_type,
        "confidential_status": span.confidential_status,
        "entity_id": span.entity_id,
        "confidence": span.confidence,
        "note": span.note,
        "version": span.version,
    }


def _log(span: Span, action: str, user: UserLike, before: Any, after: Any) -> None:
    SpanEvent.objects.create(
        span=span if action != SpanAction.DELETE else None,
        span_key=span.pk,
        annotation_set_id=span.annotation_set_id,
        action=action,
        user=_actor(user),
        before=before,
        after=after,
    )


def _ensure_editable(annotation_set: AnnotationSet) -> None:
    if annotation_set.kind == SetKind.MACHINE:
        raise DomainError("machine runs are read-only; copy a span into your own set instead")
    if annotation_set.status == SetStatus.REVIEWED and annotation_set.kind == SetKind.HUMAN:
        raise DomainError("the set has been reviewed and is closed")


@transaction.atomic
def span_create(
    *,
    annotation_set: AnnotationSet,
    user: UserLike,
    start: int,
    end: int,
    entity_type: str,
    identifier_type: str = "QUASI",
    confidential_status: str = "NOT_CONFIDENTIAL",
    entity_id: str = "",
    note: str = "",
    confidence: float | None = None,
    attrs: dict[str, Any] | None = None,
) -> Span:
    _ensure_editable(annotation_set)
    text = annotation_set.document.text
    span = Span(
        annotation_set=annotation_set,
        start=start,
        end=end,
        text=text[start:end] if 0 <= start < end <= len(text) else "",
        entity_type=entity_type,
        identifier_type=identifier_type,
        confidential_status=confidential_status,
        entity_id=entity_id,
        note=note,
        confidence=confidence,
        attrs=attrs or {},
    )
    span.full_clean()
    span.save()
    _log(span, SpanAction.CREATE, user, None, span_snapshot(span))
    return span


@transaction.atomic
def span_update(*, span: Span, user: UserLike, expected_version: int, **changes: Any) -> Span:
    """Apply ``changes`` if nobody wrote the span since ``expected_version`` was read.

    Raises :class:`StaleVersionError` (with the current state) otherwise, so the
    caller can show both versions and nothing is silently overwritten.
    """
    unknown = set(changes) - set(SPAN_EDITABLE_FIELDS)
    if unknown:
        raise DomainError(f"cannot change {', '.join(sorted(unknown))}")
    locked = (
        Span.objects.select_for_update()
        .select_related("annotation_set__document")
        .filter(pk=span.pk)
        .first()
    )
    if locked is None:
        # Deleted since it was read (e.g. replaced by an adjudication): a conflict too.
        raise StaleVersionError(None)
    if locked.version != expected_version:
        raise StaleVersionError(span_snapshot(locked))
    _ensure_editable(locked.annotation_set)
    before = span_snapshot(locked)
    for key, value in changes.items():
        setattr(locked, key, value)
    if "start" in changes or "end" in changes:
        locked.text = locked.annotation_set.document.text[locked.start : locked.end]
    locked.version = expected_version + 1
    locked.full_clean()
    locked.save()
    _log(locked, SpanAction.UPDATE, user, before, span_snapshot(locked))
    return locked


@transaction.atomic
def span_delete(*, span: Span, user: UserLike, expected_version: int | None = None) -> None:
    locked = (
        Span.objects.select_for_update().select_related("annotation_set").filter(pk=span.pk).first()
    )
    if locked is None:
        raise StaleVersionError(None)
    if expected_version is not None and locked.version != expected_version:
        raise StaleVersionError(span_snapshot(locked))
    _ensure_editable(locked.annotation_set)
    _log(locked, SpanAction.DELETE, user, span_snapshot(locked), None)
    locked.delete()


@transaction.atomic
def spans_set_decision_for_entity(
    *, annotation_set: AnnotationSet, entity_id: str, identifier_type: str, user: UserLike
) -> int:
    """Apply one decision to every mention of a co-referent entity; returns the count."""
    _ensure_editable(annotation_set)
    count = 0
    for span in annotation_set.spans.select_for_update().filter(entity_id=entity_id):
        if span.identifier_type == identifier_type:
            continue
        before = span_snapshot(span)
        span.identifier_type = identifier_type
        span.version = F("version") + 1
        span.save(update_fields=["identifier_type", "version", "updated_at"])
        span.refresh_from_db()
        _log(span, SpanAction.UPDATE, user, before, span_snapshot(span))
        count += 1
    return count
