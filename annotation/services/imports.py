"""Importing documents (TAB JSON, JSONL, plain text) with their annotations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.models import (
    TAB_EXTRA_KEY,
    AnnotationSet,
    Document,
    DocumentStatus,
    Membership,
    Project,
    Role,
    SetKind,
    SetSource,
    SetStatus,
    Span,
)
from annotation.services.base import ProgressCallback, UserLike, actor
from annotation.services.spans import BULK_BATCH, spans_create_logged, spans_merge_duplicates
from annotation.usernames import (
    import_stand_in_name,
    import_stand_in_username,
    username_look_alike,
    username_normalised,
)
from common.errors import DomainError
from jobs.models import Job
from jobs.services import job_create
from sanitizer.formats.tab import DocumentRecord, FormatError, iter_jsonl, iter_tab, iter_text

User = get_user_model()
# The job kind that runs document_import in a worker (registered by the workers app).
IMPORT_JOB_KIND = "import"
# The knowledge-base profile id of the person a document is about (re-identification):
# a top-level ``target`` or ``meta.target`` is kept as ``Document.meta["target"]``.
REID_TARGET_KEY = "target"
REID_TARGET_MAX = 200


@dataclass
class ImportSummary:
    documents: int = 0
    annotation_sets: int = 0
    spans: int = 0
    # The stand-in accounts (``<name>@import.<project id>``) this import made members
    # of the project; a member named in the file is bound and not listed.
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


def _reid_target(record: DocumentRecord) -> str | None:
    """The profile id of the record's person, checked; None when it names none."""
    top = record.extra.get(REID_TARGET_KEY)
    meta = record.meta.get(REID_TARGET_KEY)
    for where, value in (("target", top), ("meta.target", meta)):
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise FormatError(
                f"{where} must be a string (a knowledge-base profile id)", doc_id=record.doc_id
            )
        if len(value) > REID_TARGET_MAX or "\x00" in value:
            raise FormatError(
                f"{where} must be at most {REID_TARGET_MAX} characters, without NUL",
                doc_id=record.doc_id,
            )
    if top and meta and top != meta:
        raise FormatError("target and meta.target name different people", doc_id=record.doc_id)
    return (top or meta) or None


def _is_stand_in(user: Any) -> bool:
    return not user.is_active and not user.has_usable_password()


def _look_alike_in_project(name: str, project: Project) -> str | None:
    """A member of ``project`` (a stand-in by its file name) that ``name`` could be
    mistaken for. Only the project's own members count: they are who a project admin
    already sees, so the refusal tells nothing about accounts elsewhere."""
    names = []
    for username in Membership.objects.filter(project=project).values_list(
        "user__username", flat=True
    ):
        names.append(username)
        stand_in = import_stand_in_name(username, project.pk)
        if stand_in is not None:
            names.append(stand_in)
    return username_look_alike(name, names)


def _annotator_user(name: str, project: Project) -> Any:
    """The account that owns an imported annotator's set.

    Only a member of the project is bound by name: it already sees the project (an
    accepted invitation, or the admin, made it one). Any other name gets the project's
    own stand-in ``<name>@import.<project id>``, an inactive account with no usable
    password, made the same way whether or not an account called ``<name>`` exists.
    So the outcome (sets, members, summary, job result) depends only on the file and
    the project: an import tells a project admin nothing about which usernames exist,
    and gives no account that has not accepted an invitation any access. Stand-ins are
    per project, so imports into other projects are not visible either. The reserved
    names of the gold set and machine runs ("gold", "machine:...") always get a
    stand-in, so a human annotator cannot take them over in exports and agreement.
    """
    # The name as Django stores it (NFKC): a full-width "ａdmin" is "admin".
    name = username_normalised(name)
    reserved = name == "gold" or name.startswith("machine:")
    if not reserved:
        member = User.objects.filter(username=name, memberships__project=project).first()
        if member is not None:
            return member
    username = import_stand_in_username(name, project.pk)
    user = User.objects.filter(username=username).first()
    if user is not None:
        # A stand-in of this project (perhaps removed from its members since).
        if _is_stand_in(user) or Membership.objects.filter(project=project, user=user).exists():
            return user
        raise DomainError(
            f"the annotator name {name!r} cannot be imported into this project; "
            "rename the annotator in the file"
        )
    # A new stand-in must not pass for a member ("аdmin" with a Cyrillic "а").
    look_alike = _look_alike_in_project(name, project)
    if look_alike is not None:
        raise DomainError(
            f"the annotator name {name!r} looks like {look_alike!r}, a member of the "
            "project; rename the annotator in the file"
        )
    # TAB annotators are people who never log in here: inactive, no usable password.
    user = User(username=username, is_active=False)
    user.set_unusable_password()
    user.full_clean()
    user.save()
    return user


@transaction.atomic
def document_import(
    *,
    project: Project,
    path: Path,
    fmt: str,
    user: UserLike = None,
    progress: ProgressCallback | None = None,
    max_documents: int | None = None,
) -> ImportSummary:
    """Import a TAB JSON, JSONL or text file into ``project``, all or nothing.

    ``max_documents`` bounds an import made within a web request: a small file of
    many tiny documents would otherwise hold the request past the server's timeout.

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
        if max_documents is not None and summary.documents >= max_documents:
            raise DomainError(
                f"the file holds more than {max_documents} documents: import it with a "
                "job (sync=false)"
            )
        if record.doc_id in existing:
            raise FormatError(
                "a document with this id already exists in the project", doc_id=record.doc_id
            )
        reid_target = _reid_target(record)
        meta = record.meta if reid_target is None else {**record.meta, REID_TARGET_KEY: reid_target}
        document = Document(
            project=project,
            external_id=record.doc_id,
            text=record.text,
            meta=meta,
            task=record.task,
            split=record.split,
            target_person=record.target[:500],
            position=position,
            status=DocumentStatus.ANNOTATED if record.annotations else DocumentStatus.NEW,
        )
        document.full_clean(validate_unique=False, validate_constraints=False)
        document.save()
        if record.extra:
            document.meta = {**meta, TAB_EXTRA_KEY: record.extra}
            document.save(update_fields=["meta"])
        position += 1
        summary.documents += 1
        summary.document_ids.append(document.pk)
        for annotator, mentions in record.annotations.items():
            if annotator not in users:
                users[annotator] = _annotator_user(annotator, project)
                _, joined = Membership.objects.get_or_create(
                    project=project, user=users[annotator], defaults={"role": Role.ANNOTATOR}
                )
                if joined:
                    summary.users_created.append(users[annotator].get_username())
            annotation_set = AnnotationSet.objects.create(
                document=document,
                kind=SetKind.HUMAN,
                source=SetSource.IMPORT,
                annotator=users[annotator],
                status=SetStatus.SUBMITTED,
                quality_checked=annotator in record.quality_checked,
                created_by=actor(user),
                submitted_at=timezone.now(),
            )
            summary.annotation_sets += 1
            # Offsets and values were validated by the reader against this very text.
            # TAB files hold the same mention twice in one annotator's set now and then
            # (tab_dev: 3 times); they become one span with the stronger decision.
            rows = spans_merge_duplicates(
                [
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
                ]
            )
            pending_spans.extend(rows)
            summary.spans += len(rows)
        if len(pending_spans) >= BULK_BATCH:
            spans_create_logged(pending_spans, actor(user))
            pending_spans = []
        existing.add(record.doc_id)
    spans_create_logged(pending_spans, actor(user))
    return summary


def document_import_queue(
    *,
    project: Project,
    path: Path,
    fmt: str,
    created_by: UserLike = None,
    delete_after: bool = False,
) -> Job:
    """Queue a job importing ``path`` into ``project`` (a worker runs document_import);
    with ``delete_after`` the file, an upload, is removed when the job ends."""
    params: dict[str, Any] = {"path": str(path), "format": fmt}
    if delete_after:
        params["delete_after"] = True
    return job_create(kind=IMPORT_JOB_KIND, params=params, project=project, created_by=created_by)
