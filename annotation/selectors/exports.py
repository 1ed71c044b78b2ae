"""Reads: project exports (TAB JSON, masks, released texts) and the set whose masks
a document's export uses."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch

from annotation.models import TAB_EXTRA_KEY, AnnotationSet, Document, Project, SetKind, Span
from annotation.usernames import import_stand_in_name, import_stand_in_username
from common.errors import DomainError
from sanitizer.formats.release import Release, release, release_text
from sanitizer.formats.tab import DocumentRecord, MentionRecord

MASKED_IDENTIFIER_TYPES = ("DIRECT", "QUASI")


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


def _export_keys(project_id: int, sets: Sequence[AnnotationSet]) -> list[str]:
    """The annotator key of each set of a document. A stand-in the import made for this
    project (``annotator1@import.12``) is named as in the imported file (``annotator1``),
    so a TAB file round-trips, unless that name is reserved for the gold set or machine
    runs or another set of the document already has it."""
    keys = [_export_key(s) for s in sets]
    taken = set(keys)
    for i, annotation_set in enumerate(sets):
        if annotation_set.kind != SetKind.HUMAN or annotation_set.annotator is None:
            continue
        name = import_stand_in_name(keys[i], project_id)
        if name is None or name == "gold" or name.startswith("machine:") or name in taken:
            continue
        taken.add(name)
        keys[i] = name
    return keys


def _tab_extra(meta: dict[str, Any]) -> dict[str, Any]:
    # Only the import writes this key; anything else there must not rewrite the record.
    extra = meta.get(TAB_EXTRA_KEY)
    if not isinstance(extra, dict):
        return {}
    return {k: v for k, v in extra.items() if k not in ("doc_id", "text", "annotations")}


def _export_meta(meta: dict[str, Any]) -> dict[str, Any]:
    # An import copies a top-level ``target`` into meta (re-identification reads it
    # there); the export writes it back at the top level only, as it came.
    extra = meta.get(TAB_EXTRA_KEY)
    moved = isinstance(extra, dict) and "target" in extra and extra["target"] == meta.get("target")
    return {k: v for k, v in meta.items() if k != TAB_EXTRA_KEY and not (moved and k == "target")}


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
            meta=_export_meta(document.meta),
            split=document.split,
            target=document.target_person,
            extra=_tab_extra(document.meta),
        )
        for annotation_set, key in zip(sets, _export_keys(project.pk, sets), strict=True):
            record.annotations[key] = [_mention(s) for s in annotation_set.spans.all()]
            if annotation_set.quality_checked:
                record.quality_checked.append(key)
        yield record.to_tab()


def _annotator_usernames(name: str, project_id: int) -> list[str]:
    """The usernames ``annotator:<name>`` means: the account, then the project's
    import stand-in of that name (the name its export shows, see :func:`_export_keys`)."""
    return [name, import_stand_in_username(name, project_id)]


def _choose_masking_set(
    sets: list[AnnotationSet], source: str, project_id: int
) -> AnnotationSet | None:
    """Pick the exported set among a document's sets (ordered by id, superseded machine
    runs included).

    ``source``: ``gold``; ``annotator:<username>`` (or the file's name of an import
    stand-in); ``machine:<source name>`` (the newest run of that name, even if a run of
    another name of its kind superseded it: its masks are what was asked for); or
    ``auto`` = gold if any, else the first quality-checked human set, else the first
    submitted human set, else the newest current machine run.
    """
    gold = [s for s in sets if s.kind == SetKind.GOLD]
    human = [s for s in sets if s.kind == SetKind.HUMAN]
    runs = sorted(
        (s for s in sets if s.kind == SetKind.MACHINE),
        key=lambda s: (s.created_at, s.pk),
        reverse=True,
    )
    machine = [s for s in runs if s.superseded_at is None]
    if source == "gold":
        candidates = gold
    elif source.startswith("annotator:"):
        name = source.split(":", 1)[1]
        candidates = [
            s
            for username in _annotator_usernames(name, project_id)
            for s in human
            if s.annotator and s.annotator.get_username() == username
        ]
    elif source.startswith("machine:"):
        name = source.split(":", 1)[1]
        candidates = [s for s in runs if s.source_name == name]
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
    sets = list(
        AnnotationSet.history.filter(document=document).select_related("annotator").order_by("id")
    )
    return _choose_masking_set(sets, source, document.project_id)


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
) -> Iterator[tuple[Document, list[tuple[int, int, str, str]] | None]]:
    """Each document of the project with the masked spans ``(start, end, entity_type,
    entity_id)`` of its exported set.

    Works a chunk of documents at a time with three queries per chunk, whatever the
    number of documents, sets and spans. ``None`` instead of spans: the document
    has no set of ``source``.
    """
    documents = project.documents.order_by("position", "id")
    ids = list(documents.values_list("pk", flat=True))
    for offset in range(0, len(ids), chunk):
        batch = list(documents.filter(pk__in=ids[offset : offset + chunk]))
        sets_by_document: dict[int, list[AnnotationSet]] = {d.pk: [] for d in batch}
        for annotation_set in (
            AnnotationSet.history.filter(document__in=batch)
            .select_related("annotator")
            .order_by("id")
        ):
            sets_by_document[annotation_set.document_id].append(annotation_set)
        chosen = {
            d.pk: _choose_masking_set(sets_by_document[d.pk], source, project.pk) for d in batch
        }
        spans: dict[int, list[tuple[int, int, str, str]]] = {s.pk: [] for s in chosen.values() if s}
        for set_id, start, end, entity_type, entity_id in (
            Span.objects.filter(
                annotation_set_id__in=spans, identifier_type__in=MASKED_IDENTIFIER_TYPES
            )
            .order_by("start", "end")
            .values_list("annotation_set_id", "start", "end", "entity_type", "entity_id")
        ):
            spans[set_id].append((start, end, entity_type, entity_id))
        for document in batch:
            picked = chosen[document.pk]
            yield document, spans[picked.pk] if picked else None


def _missing_source(external_id: str, source: str) -> DomainError:
    return DomainError(
        f"document {external_id!r} has no {source!r} set to take its masks from; "
        "nothing was exported (choose another source, or annotate it first)"
    )


def _require_source(project: Project, source: str) -> None:
    """Refuse, before anything is written, a named ``source`` that some document of the
    project has no set of (the same test as :func:`_choose_masking_set`): that
    document would otherwise be released in clear."""
    if source == "auto":
        return
    kind, _, name = source.partition(":")
    wanted: dict[str, Any]
    if source == "gold":
        wanted = {"kind": SetKind.GOLD}
    elif kind == "annotator":
        wanted = {
            "kind": SetKind.HUMAN,
            "annotator__username__in": _annotator_usernames(name, project.pk),
        }
    elif kind == "machine":
        wanted = {"kind": SetKind.MACHINE, "source_name": name}
    else:
        raise ValueError(f"unknown mask source {source!r}")
    has_set = AnnotationSet.history.filter(document=OuterRef("pk"), **wanted)
    missing = (
        project.documents.filter(~Exists(has_set))
        .order_by("position", "id")
        .values_list("external_id", flat=True)
        .first()
    )
    if missing is not None:
        raise _missing_source(missing, source)


def project_export_masks(*, project: Project, source: str = "auto") -> dict[str, list[list[int]]]:
    """TAB's evaluation format ``{doc_id: [[start, end], ...]}``."""
    return {
        document.external_id: [[start, end] for start, end, *_ in spans or []]
        for document, spans in _documents_with_masks(project, source)
    }


def project_export_release(
    *, project: Project, source: str = "auto", style: str = "type"
) -> Iterator[dict[str, Any]]:
    """The released texts: ``{"doc_id", "text"}`` with each masked span replaced
    (``style``: one of ``sanitizer.formats.release.REPLACEMENT_STYLES``).

    A named ``source`` missing for a document raises :class:`DomainError` here, before
    the first text is produced (so before a response or a file is started)."""
    _require_source(project, source)
    return _released(project, source, style)


def _released(project: Project, source: str, style: str) -> Iterator[dict[str, Any]]:
    for document, spans in _documents_with_masks(project, source):
        if spans is None and source != "auto":
            # Checked up front; should the set go meanwhile, stop rather than release.
            raise _missing_source(document.external_id, source)
        yield {
            "doc_id": document.external_id,
            "text": release_text(document.text, spans or [], style),
        }


def document_release(
    *,
    document: Document,
    spans: Iterable[tuple[int, int, str, str, str]],
    style: str = "type",
) -> Release:
    """``document``'s text as released with the given ``(start, end, entity_type,
    identifier_type, entity_id)`` spans: DIRECT and QUASI spans are replaced, NO_MASK
    ones kept; with where each placeholder landed.

    Offsets are code points into the document's text; a span outside it raises
    :class:`DomainError` naming it.
    """
    length = len(document.text)
    masked = []
    for position, (start, end, entity_type, identifier_type, entity_id) in enumerate(spans):
        if not 0 <= start < end <= length:
            raise DomainError(
                f"span {position} ({start}..{end}) is not within the document's {length} characters"
            )
        if identifier_type in MASKED_IDENTIFIER_TYPES:
            masked.append((start, end, entity_type, entity_id))
    return release(document.text, masked, style)
