"""Pre-annotation: machine suggestions stored as annotation sets (services).

The recognizer is either the rule-based privacy-enhanced pipeline
(``sanitizer.recognizer``) or, when the project (or the installation) has an active
recognizer ModelVersion, the fine-tuned transformer tagger it points to. Every
stored span carries the version string of what produced it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Q

from annotation.models import Document, Project, SetKind, SetSource
from annotation.services import machine_set_create
from jobs.models import Job, ModelKind, ModelVersion
from sanitizer.types import EntitySpan

ProgressCallback = Callable[[int, int, str], None]

RULE_BASED_NAME = "privacy-enhanced-recognizer"


@dataclass
class LoadedRecognizer:
    name: str
    version: str
    predict_batch: Callable[[Sequence[str]], list[list[EntitySpan]]]
    model_version: ModelVersion | None
    source: str


@functools.lru_cache(maxsize=4)
def _rule_based(config_key: tuple[tuple[str, Any], ...]) -> Any:
    from sanitizer.recognizer.pipeline import build_recognizer

    return build_recognizer(dict(config_key) or None)


@functools.lru_cache(maxsize=2)
def _tagger(path: str) -> Any:
    from sanitizer.training.tagger import load_tagger

    return load_tagger(path)


def type_from_overlap(
    spans: Sequence[EntitySpan], typed: Sequence[EntitySpan], default: str = "MISC"
) -> list[EntitySpan]:
    """Give untyped spans (a masking tagger's MASK, a distant label) the semantic type
    of the typed span they overlap most, else ``default``; everything else is kept."""
    out = []
    for span in spans:
        best, best_overlap = None, 0
        for candidate in typed:
            overlap = min(span.end, candidate.end) - max(span.start, candidate.start)
            if overlap > best_overlap:
                best, best_overlap = candidate, overlap
        label = best.label if best is not None else default
        out.append(dataclasses.replace(span, label=label))
    return out


def _masker_predict(tagger: Any) -> Callable[[Sequence[str]], list[list[EntitySpan]]]:
    rules = _rule_based((("spacy_model", settings.SPACY_MODEL),))

    def predict_batch(texts: Sequence[str]) -> list[list[EntitySpan]]:
        masks = tagger.predict_batch(texts)
        typed = rules.predict_batch(texts)
        return [type_from_overlap(m, t) for m, t in zip(masks, typed, strict=True)]

    return predict_batch


def active_model_version(*, project: Project | None, kind: str) -> ModelVersion | None:
    """The project's active model of ``kind``, else the active shared one."""
    qs = ModelVersion.objects.filter(kind=kind, is_active=True)
    if project is not None:
        own = qs.filter(project=project).first()
        if own is not None:
            return own
    return qs.filter(project__isnull=True).first()


def recognizer_load(
    *, project: Project | None, model_version: ModelVersion | None = None, use_active: bool = True
) -> LoadedRecognizer:
    """Load (once per process) the recognizer to use for ``project``."""
    if model_version is None and use_active:
        model_version = active_model_version(project=project, kind=ModelKind.RECOGNIZER)
    if model_version is not None:
        tagger = _tagger(model_version.artefact_path)
        # A masking tagger says what to mask, not what it is: types come from the rules.
        predict = (
            _masker_predict(tagger)
            if model_version.kind == ModelKind.MASKER
            else tagger.predict_batch
        )
        return LoadedRecognizer(
            name=model_version.name,
            version=tagger.source,
            predict_batch=predict,
            model_version=model_version,
            source=SetSource.MODEL,
        )
    config: dict[str, Any] = {"spacy_model": settings.SPACY_MODEL}
    recognizer = _rule_based(tuple(sorted(config.items())))
    return LoadedRecognizer(
        name=RULE_BASED_NAME,
        version=recognizer.version,
        predict_batch=recognizer.predict_batch,
        model_version=None,
        source=SetSource.PREANNOTATION,
    )


def preannotate_documents(
    *,
    project: Project,
    job: Job | None = None,
    model_version: ModelVersion | None = None,
    document_ids: Sequence[int] | None = None,
    skip_existing: bool = True,
    batch_size: int = 8,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Run the recognizer over the project's documents and store one machine set each.

    Idempotent: a document that already has a machine set from this job, or (with
    ``skip_existing``) from the same recognizer version, is skipped, so a re-delivered
    task or a repeated request does not duplicate suggestions. Each batch is stored in
    its own transaction: an interrupted job keeps what it finished.
    """
    recognizer = recognizer_load(project=project, model_version=model_version)
    documents = project.documents.order_by("position", "id")
    if document_ids:
        documents = documents.filter(pk__in=document_ids)
    done_filter = Q(annotation_sets__kind=SetKind.MACHINE) & (
        Q(annotation_sets__job=job) if job is not None else Q(pk__in=[])
    )
    if skip_existing:
        done_filter = done_filter | Q(
            annotation_sets__kind=SetKind.MACHINE,
            annotation_sets__source_version=recognizer.version,
        )
    todo = list(documents.exclude(done_filter).distinct().only("id", "text"))
    total = len(todo)
    skipped = documents.count() - total
    if progress:
        progress(
            0,
            total,
            f"{recognizer.name} ({recognizer.version}): {total} documents, {skipped} already done",
        )
    spans_stored = 0
    for offset in range(0, total, batch_size):
        batch: list[Document] = todo[offset : offset + batch_size]
        predictions = recognizer.predict_batch([d.text for d in batch])
        for document, spans in zip(batch, predictions, strict=True):
            machine_set_create(
                document=document,
                source=recognizer.source,
                source_name=recognizer.name,
                source_version=recognizer.version,
                spans=spans,
                parameters={"batch_size": batch_size},
                model_version=recognizer.model_version,
                job=job,
                created_by=job.created_by if job is not None else None,
            )
            spans_stored += len(spans)
        if progress:
            progress(min(offset + batch_size, total), total, "")
    return {
        "documents": total,
        "skipped": skipped,
        "spans": spans_stored,
        "recognizer": recognizer.name,
        "version": recognizer.version,
        "model_version_id": recognizer.model_version.pk if recognizer.model_version else None,
    }
