"""Writes of documents (after import) and of their assignment to annotators."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from annotation.models import (
    AnnotationSet,
    Assignment,
    Document,
    DocumentStatus,
    Membership,
    Project,
    Role,
)
from annotation.services.base import UserLike, actor
from common.errors import DomainError
from sanitizer.formats.tab import RESERVED_META_PREFIX, reserved_meta_keys


def document_text_locked(document: Document) -> bool:
    """Whether the text is fixed: once anyone annotated the document (a set exists, an
    empty one or a superseded machine run included), every span and every decision
    "nothing to mask here" is tied to these very characters; a changed text would shift
    them and expose what was masked. (Every span belongs to a set: the sets decide.)"""
    return (
        document.status != DocumentStatus.NEW
        or AnnotationSet.history.filter(document=document).exists()
    )


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
        if document_text_locked(document):
            raise DomainError("the text of an annotated document cannot change")
        document.text = text
    if meta is not None:
        reserved = reserved_meta_keys(meta)
        if reserved:
            raise DomainError(
                f"meta key {reserved[0]!r} is reserved: keys starting with "
                f"{RESERVED_META_PREFIX!r} belong to the app"
            )
        # The app's own keys (TAB's extra keys for export) survive a change of meta.
        kept = {key: document.meta[key] for key in reserved_meta_keys(document.meta)}
        document.meta = {**meta, **kept}
    if split is not None:
        document.split = split
    if target_person is not None:
        document.target_person = target_person
    document.full_clean(validate_unique=False, validate_constraints=False)
    document.save()
    return document


def _require_active(users: list[Any]) -> None:
    """Documents go only to accounts that can log in: TAB annotators imported with a
    file are inactive and own their imported sets, but never get new work."""
    inactive = sorted(u.get_username() for u in users if not u.is_active)
    if inactive:
        raise DomainError(f"inactive accounts cannot be assigned documents: {inactive}")


@transaction.atomic
def assignment_create(*, document: Document, user: Any, created_by: UserLike = None) -> Assignment:
    _require_active([user])
    assignment, _ = Assignment.objects.get_or_create(
        document=document, user=user, defaults={"created_by": actor(created_by)}
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
    _require_active(list(members.values()))
    assignments = []
    cursor = 0
    for document_id in document_ids:
        for _ in range(overlap):
            user = members[annotator_ids[cursor % len(annotator_ids)]]
            cursor += 1
            assignment, _ = Assignment.objects.get_or_create(
                document=documents[document_id],
                user=user,
                defaults={"created_by": actor(created_by)},
            )
            assignments.append(assignment)
    return assignments
