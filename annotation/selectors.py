"""Reads: what a user may see, and exports."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet

from annotation.models import (
    TAB_EXTRA_KEY,
    AnnotationSet,
    Document,
    Membership,
    Project,
    Role,
    SetKind,
    Span,
    SpanEvent,
)
from sanitizer.formats.tab import DocumentRecord, MentionRecord, release_text

MASKED_IDENTIFIER_TYPES = ("DIRECT", "QUASI")


def project_role(*, user: Any, project: Project | int) -> str | None:
    """The user's role in the project, or None. Superusers act as project admins."""
    if user is None or not user.is_authenticated:
        return None
    if user.is_superuser:
        return Role.ADMIN
    project_id = project.pk if isinstance(project, Project) else project
    return (
        Membership.objects.filter(project_id=project_id, user=user)
        .values_list("role", flat=True)
        .first()
    )


def projects_for_user(*, user: Any) -> QuerySet[Project]:
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(memberships__user=user).distinct()


def documents_for_user(*, user: Any, project: Project | None = None) -> QuerySet[Document]:
    """Documents of the user's projects; annotators see only documents assigned to them
    or that they annotated, reviewers and admins see all of their projects' documents."""
    qs = Document.objects.all()
    if project is not None:
        qs = qs.filter(project=project)
    if user.is_superuser:
        return qs
    privileged = Membership.objects.filter(user=user, role__in=(Role.REVIEWER, Role.ADMIN)).values(
        "project_id"
    )
    annotator_projects = Membership.objects.filter(user=user, role=Role.ANNOTATOR).values(
        "project_id"
    )
    return qs.filter(
        Q(project_id__in=privileged)
        | (
            Q(project_id__in=annotator_projects)
            & (Q(assignments__user=user) | Q(annotation_sets__annotator=user))
        )
    ).distinct()


def annotator_queue(*, user: Any, project: Project | None = None) -> QuerySet[Document]:
    qs = Document.objects.filter(assignments__user=user)
    if project is not None:
        qs = qs.filter(project=project)
    own_sets = AnnotationSet.objects.filter(
        document=OuterRef("pk"), annotator=user, kind=SetKind.HUMAN
    )
    return (
        qs.annotate(
            has_own_set=Exists(own_sets),
        )
        .select_related("project")
        .order_by("project__name", "position", "id")
    )


def gold_published(*, document: Document) -> bool:
    return AnnotationSet.objects.filter(
        document=document, kind=SetKind.GOLD, published_at__isnull=False
    ).exists()


def annotation_sets_for_user(*, user: Any, document: Document) -> QuerySet[AnnotationSet]:
    """Sets of ``document`` the user may see.

    Reviewers and admins see every set. Annotators see their own set, plus machine
    suggestions (they correct them); other annotators' sets and the gold set only
    once the gold set is published, so they are not influenced while annotating.
    """
    qs = document.annotation_sets.select_related("annotator").annotate(span_count=Count("spans"))
    role = project_role(user=user, project=document.project_id)
    if role in (Role.REVIEWER, Role.ADMIN):
        return qs
    if role != Role.ANNOTATOR:
        return qs.none()
    if gold_published(document=document):
        return qs
    return qs.filter(Q(annotator=user) | Q(kind=SetKind.MACHINE))


def annotation_set_visible(*, user: Any, annotation_set: AnnotationSet) -> bool:
    return (
        annotation_sets_for_user(user=user, document=annotation_set.document)
        .filter(pk=annotation_set.pk)
        .exists()
    )


def annotation_set_editable(*, user: Any, annotation_set: AnnotationSet) -> bool:
    """Annotators edit their own set; reviewers and admins edit gold sets too."""
    role = project_role(user=user, project=annotation_set.document.project_id)
    return annotation_set_editable_in_role(user=user, annotation_set=annotation_set, role=role)


def annotation_set_editable_in_role(
    *, user: Any, annotation_set: AnnotationSet, role: str | None
) -> bool:
    """:func:`annotation_set_editable` for a caller that already knows the user's role
    in the set's project (one query for a page of sets instead of one per set)."""
    if annotation_set.kind == SetKind.HUMAN:
        return annotation_set.annotator_id == user.pk and role is not None
    if annotation_set.kind == SetKind.GOLD:
        return role in (Role.REVIEWER, Role.ADMIN)
    return False


# --- exports ----------------------------------------------------------------------------


def _mention(span: Span) -> MentionRecord:
    return MentionRecord(
        mention_id=span.mention_id,
        start=span.start,
        end=span.end,
        span_text=span.text,
        entity_type=span.entity_type,
        identifier_type=span.identifier_type,
        confidential_status=span.confidential_status,
        entity_id=span.entity_id,
        attrs=span.attrs if isinstance(span.attrs, dict) else {},
    )


def _export_key(annotation_set: AnnotationSet) -> str:
    if annotation_set.kind == SetKind.HUMAN and annotation_set.annotator is not None:
        return annotation_set.annotator.get_username()
    if annotation_set.kind == SetKind.GOLD:
        return "gold"
    return f"machine:{annotation_set.source_name or annotation_set.source}:{annotation_set.pk}"


def _tab_extra(meta: dict[str, Any]) -> dict[str, Any]:
    # Only the import writes this key; anything else there must not rewrite the record.
    extra = meta.get(TAB_EXTRA_KEY)
    if not isinstance(extra, dict):
        return {}
    return {k: v for k, v in extra.items() if k not in ("doc_id", "text", "annotations")}


def _documents_with_sets(
    project: Project, kinds: Sequence[str], chunk: int = 200
) -> Iterator[tuple[Document, list[AnnotationSet]]]:
    """Each document of the project with its sets of ``kinds`` (spans prefetched in
    file order), a chunk of documents at a time: three queries per chunk."""
    documents = project.documents.order_by("position", "id")
    ids = list(documents.values_list("pk", flat=True))
    for offset in range(0, len(ids), chunk):
        batch = list(documents.filter(pk__in=ids[offset : offset + chunk]))
        by_document: dict[int, list[AnnotationSet]] = {d.pk: [] for d in batch}
        sets = (
            AnnotationSet.objects.filter(document__in=batch, kind__in=kinds)
            .select_related("annotator")
            .prefetch_related(Prefetch("spans", queryset=Span.objects.order_by("id")))
            .order_by("id")
        )
        for annotation_set in sets:
            by_document[annotation_set.document_id].append(annotation_set)
        for document in batch:
            yield document, by_document[document.pk]


def project_export_tab(
    *, project: Project, include_machine: bool = False, include_gold: bool = False
) -> Iterator[dict[str, Any]]:
    """Documents as TAB JSON objects, one at a time (human sets keyed by username)."""
    kinds = [SetKind.HUMAN]
    if include_machine:
        kinds.append(SetKind.MACHINE)
    if include_gold:
        kinds.append(SetKind.GOLD)
    for document, sets in _documents_with_sets(project, kinds):
        record = DocumentRecord(
            doc_id=document.external_id,
            text=document.text,
            task=document.task,
            meta={k: v for k, v in document.meta.items() if k != TAB_EXTRA_KEY},
            split=document.split,
            target=document.target_person,
            extra=_tab_extra(document.meta),
        )
        for annotation_set in sets:
            key = _export_key(annotation_set)
            record.annotations[key] = [_mention(s) for s in annotation_set.spans.all()]
            if annotation_set.quality_checked:
                record.quality_checked.append(key)
        yield record.to_tab()


def _choose_masking_set(sets: list[AnnotationSet], source: str) -> AnnotationSet | None:
    """Pick the exported set among a document's sets (ordered by id).

    ``source``: ``gold``; ``annotator:<username>``; ``machine:<source name>`` (the
    newest such run); or ``auto`` = gold if any, else the first quality-checked
    human set, else the first submitted human set, else the newest machine run.
    """
    gold = [s for s in sets if s.kind == SetKind.GOLD]
    human = [s for s in sets if s.kind == SetKind.HUMAN]
    machine = sorted(
        (s for s in sets if s.kind == SetKind.MACHINE),
        key=lambda s: (s.created_at, s.pk),
        reverse=True,
    )
    if source == "gold":
        candidates = gold
    elif source.startswith("annotator:"):
        name = source.split(":", 1)[1]
        candidates = [s for s in human if s.annotator and s.annotator.get_username() == name]
    elif source.startswith("machine:"):
        name = source.split(":", 1)[1]
        candidates = [s for s in machine if s.source_name == name]
    elif source == "auto":
        candidates = (
            gold
            or [s for s in human if s.quality_checked]
            or [s for s in human if s.status != "in_progress"]
            or machine
        )
    else:
        raise ValueError(f"unknown mask source {source!r}")
    return candidates[0] if candidates else None


def masking_set(*, document: Document, source: str = "auto") -> AnnotationSet | None:
    """The set whose masks are exported (see :func:`_choose_masking_set`)."""
    sets = list(document.annotation_sets.select_related("annotator").order_by("id"))
    return _choose_masking_set(sets, source)


def masked_spans(annotation_set: AnnotationSet | None) -> list[tuple[int, int, str]]:
    if annotation_set is None:
        return []
    return list(
        annotation_set.spans.filter(identifier_type__in=MASKED_IDENTIFIER_TYPES)
        .order_by("start", "end")
        .values_list("start", "end", "entity_type")
    )


def _documents_with_masks(
    project: Project, source: str, chunk: int = 200
) -> Iterator[tuple[Document, list[tuple[int, int, str]]]]:
    """Each document of the project with the masked spans of its exported set.

    Works a chunk of documents at a time with three queries per chunk, whatever the
    number of documents, sets and spans.
    """
    documents = project.documents.order_by("position", "id")
    ids = list(documents.values_list("pk", flat=True))
    for offset in range(0, len(ids), chunk):
        batch = list(documents.filter(pk__in=ids[offset : offset + chunk]))
        sets_by_document: dict[int, list[AnnotationSet]] = {d.pk: [] for d in batch}
        for annotation_set in (
            AnnotationSet.objects.filter(document__in=batch)
            .select_related("annotator")
            .order_by("id")
        ):
            sets_by_document[annotation_set.document_id].append(annotation_set)
        chosen = {d.pk: _choose_masking_set(sets_by_document[d.pk], source) for d in batch}
        spans: dict[int, list[tuple[int, int, str]]] = {s.pk: [] for s in chosen.values() if s}
        for set_id, start, end, entity_type in (
            Span.objects.filter(
                annotation_set_id__in=spans, identifier_type__in=MASKED_IDENTIFIER_TYPES
            )
            .order_by("start", "end")
            .values_list("annotation_set_id", "start", "end", "entity_type")
        ):
            spans[set_id].append((start, end, entity_type))
        for document in batch:
            picked = chosen[document.pk]
            yield document, spans[picked.pk] if picked else []


def project_export_masks(*, project: Project, source: str = "auto") -> dict[str, list[list[int]]]:
    """TAB's evaluation format ``{doc_id: [[start, end], ...]}``."""
    return {
        document.external_id: [[start, end] for start, end, _ in spans]
        for document, spans in _documents_with_masks(project, source)
    }


def project_export_release(
    *, project: Project, source: str = "auto", style: str = "type"
) -> Iterator[dict[str, Any]]:
    """The released texts: ``{"doc_id", "text"}`` with each masked span replaced."""
    for document, spans in _documents_with_masks(project, source):
        yield {"doc_id": document.external_id, "text": release_text(document.text, spans, style)}


# --- API reads ---------------------------------------------------------------------------


def project_memberships(*, project: Project) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(project=project).select_related("user").order_by("user__username")
    )


def user_memberships(*, user: Any) -> QuerySet[Membership]:
    return Membership.objects.filter(user=user).select_related("project").order_by("project__name")


def span_events(
    *, annotation_set: AnnotationSet, span_key: int | None = None
) -> QuerySet[SpanEvent]:
    """The audit trail of a set (or of one span in it, deleted or not), oldest first."""
    qs = SpanEvent.objects.filter(annotation_set=annotation_set).select_related("user")
    if span_key is not None:
        qs = qs.filter(span_key=span_key)
    return qs.order_by("at", "id")
