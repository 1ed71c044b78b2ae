"""Running a labeller (a recognizer, distant labelling...) over a project's documents
and storing one machine annotation set per document: the one loop both pre-annotation
and distant labelling use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet

from annotation.models import AnnotationSet, Document, Project, SetKind
from annotation.services.annotation_sets import machine_set_create
from annotation.services.base import ProgressCallback
from sanitizer.types import EntitySpan

LabelBatch = Callable[[Sequence[Document]], list[list[EntitySpan]]]


@dataclass(frozen=True)
class MachineRunSummary:
    documents: int  # documents labelled in this call
    skipped: int  # documents skipped as already done
    spans: int  # spans stored


def _documents_done(job: Any, source_version: str, skip_same_version: bool) -> Q | None:
    """Documents this run must not label again, or None when there are none."""
    done: Q | None = None
    machine = AnnotationSet.history.filter(kind=SetKind.MACHINE)
    if job is not None:
        # A re-delivered task finds the documents it stored before it was interrupted.
        done = Q(pk__in=machine.filter(job=job).values("document_id"))
    if skip_same_version:
        # Only the current run counts: a document whose run of this version was since
        # replaced by another version's is labelled again. (Subqueries, because an
        # exclude() over a multi-valued join may match its conditions on different sets.)
        current = machine.filter(source_version=source_version, superseded_at__isnull=True)
        same = Q(pk__in=current.values("document_id"))
        done = same if done is None else done | same
    return done


def _documents(project: Project, document_ids: Sequence[int] | None) -> QuerySet[Document]:
    documents = project.documents.order_by("position", "id")
    if document_ids:
        documents = documents.filter(pk__in=document_ids)
    return documents


def machine_run_store(
    *,
    project: Project,
    source: str,
    source_name: str,
    source_version: str,
    label_batch: LabelBatch,
    parameters: dict[str, Any],
    job: Any = None,
    model_version: Any = None,
    document_ids: Sequence[int] | None = None,
    skip_same_version: bool = False,
    batch_size: int = 8,
    progress: ProgressCallback | None = None,
    start_message: Callable[[int, int], str] | None = None,
    document_parameters: Callable[[Document], dict[str, Any]] | None = None,
) -> MachineRunSummary:
    """Label the project's documents (ordered by position) and store one machine set each,
    which replaces the document's previous run of the same kind (kept as history).

    Idempotent: a document that already has a machine set from ``job`` (a re-delivered
    task) or, with ``skip_same_version``, one of the same ``source_version`` (a repeated
    request) is skipped. ``label_batch`` gets the documents of a batch (``id``, ``text``
    and ``external_id`` loaded) and returns their spans in order; each batch is stored
    in its own transaction, so an interrupted job keeps what it finished.
    ``document_parameters``, asked after a document's batch was labelled, adds
    per-document entries (e.g. an explanation) to ``parameters`` for its set.
    ``progress`` gets ``(0, total, start_message(total, skipped))`` first, then the
    number of documents done after each batch.
    """
    documents = _documents(project, document_ids)
    done = _documents_done(job, source_version, skip_same_version)
    pending = documents.exclude(done) if done is not None else documents
    todo = list(pending.only("id", "text", "external_id"))
    total = len(todo)
    skipped = documents.count() - total
    if progress:
        progress(0, total, start_message(total, skipped) if start_message else "")
    created_by = job.created_by if job is not None else None
    spans_stored = 0
    for offset in range(0, total, batch_size):
        batch = todo[offset : offset + batch_size]
        predictions = label_batch(batch)
        with transaction.atomic():
            for document, spans in zip(batch, predictions, strict=True):
                extra = document_parameters(document) if document_parameters else {}
                machine_set_create(
                    document=document,
                    source=source,
                    source_name=source_name,
                    source_version=source_version,
                    spans=spans,
                    parameters={**parameters, **extra},
                    model_version=model_version,
                    job=job,
                    created_by=created_by,
                )
                spans_stored += len(spans)
        if progress:
            progress(min(offset + batch_size, total), total, "")
    return MachineRunSummary(documents=total, skipped=skipped, spans=spans_stored)
