"""Building knowledge bases and distant labelling of a project's documents (services).

The heavy lifting is plain Python in ``sanitizer.kanon``; these functions move its
inputs and outputs in and out of the database.
"""

from __future__ import annotations

import functools
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import Project, SetKind, SetSource
from annotation.preannotation import recognizer_load, type_from_overlap
from annotation.services import machine_set_create
from jobs.models import Job, JobKind
from jobs.services import job_create
from knowledge.models import KbFormat, KbStatus, KnowledgeBase

ProgressCallback = Callable[[int, int, str], None]
SELECTIONS = ("greedy", "random")
DISTANT_SOURCE_NAME = "distant-labelling"


def knowledge_base_create(
    *,
    name: str,
    source_path: Path,
    source_format: str,
    project: Project | None = None,
    params: dict[str, Any] | None = None,
    created_by: Any = None,
    background: bool = True,
) -> KnowledgeBase:
    """Register a knowledge base and queue the job that indexes it.

    ``params`` may hold ``max_df`` (document-frequency cut-off) and ``language``
    (Wikidata labels). With ``background=False`` the index is built inline.
    """
    if source_format not in KbFormat.values:
        raise ValueError(f"unknown knowledge-base format {source_format!r}")
    if not Path(source_path).exists():
        raise ValueError(f"no such file: {source_path}")
    kb = KnowledgeBase(
        name=name,
        project=project,
        source_format=source_format,
        source_path=str(source_path),
        params=params or {},
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
    )
    kb.full_clean()
    with transaction.atomic():
        kb.save()
        kb.index_dir = str(Path(settings.MODEL_DIR) / "knowledge" / f"kb-{kb.pk}")
        if background:
            kb.job = job_create(
                kind=JobKind.KB_IMPORT,
                params={"knowledge_base_id": kb.pk},
                project=project,
                created_by=created_by,
            )
        kb.save(update_fields=["index_dir", "job"])
    if not background:
        knowledge_base_build(knowledge_base=kb)
    return kb


def knowledge_base_build(
    *, knowledge_base: KnowledgeBase, progress: ProgressCallback | None = None
) -> KnowledgeBase:
    """Stream the source file into an inverted index and gazetteer under ``index_dir``.

    Rebuilds from scratch (a half-written index from an interrupted run is removed).
    """
    from sanitizer.kanon.gazetteer import Gazetteer
    from sanitizer.kanon.index import build_index
    from sanitizer.kanon.kb import read_kb

    kb = knowledge_base
    index_dir = Path(kb.index_dir)
    if index_dir.exists():
        shutil.rmtree(index_dir)
    index_dir.parent.mkdir(parents=True, exist_ok=True)

    def report(done: int, total: int | None, message: str) -> None:
        if progress is not None:
            progress(done, total or 0, message)

    reader_options = {}
    if kb.source_format == KbFormat.WIKIDATA and kb.params.get("language"):
        reader_options["language"] = kb.params["language"]
    try:
        persons = read_kb(kb.source_path, kb.source_format, progress=report, **reader_options)
        index = build_index(persons, max_df=kb.params.get("max_df"), progress=report)
        index.save(index_dir)
        Gazetteer.from_terms(index.terms).save(index_dir / "gazetteer.pkl")
    except Exception:
        KnowledgeBase.objects.filter(pk=kb.pk).update(status=KbStatus.FAILED)
        raise
    kb.n_persons = index.n_persons
    kb.n_terms = index.n_terms
    kb.index_bytes = sum(f.stat().st_size for f in index_dir.rglob("*") if f.is_file())
    kb.status = KbStatus.READY
    kb.built_at = timezone.now()
    kb.save(update_fields=["n_persons", "n_terms", "index_bytes", "status", "built_at"])
    _load_index.cache_clear()
    return kb


@functools.lru_cache(maxsize=2)
def _load_index(index_dir: str, built_at: str) -> tuple[Any, Any]:
    # ``built_at`` is part of the key so a rebuilt knowledge base is reloaded.
    from sanitizer.kanon.labelling import load_or_build

    return load_or_build(index_dir=index_dir)


def distant_label_project(
    *,
    project: Project,
    knowledge_base: KnowledgeBase,
    k: int,
    max_arity: int = 3,
    selection: str = "greedy",
    seed: int = 0,
    job: Job | None = None,
    type_with_recognizer: bool = True,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Label every document of ``project`` for k-anonymity against ``knowledge_base``.

    Stores one machine set per document (source = distant labelling, parameters
    recorded); each span carries the combination that forced its mask and how many
    people share it. Documents already labelled by this job are skipped (re-runs).
    """
    from sanitizer.kanon.labelling import label_document

    if knowledge_base.status != KbStatus.READY:
        raise ValueError(f"knowledge base {knowledge_base} is not ready ({knowledge_base.status})")
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {SELECTIONS}")
    index, gazetteer = _load_index(knowledge_base.index_dir, str(knowledge_base.built_at))
    recognizer = None
    if type_with_recognizer:
        recognizer = recognizer_load(project=None, use_active=False)
    parameters = {
        "knowledge_base_id": knowledge_base.pk,
        "knowledge_base": knowledge_base.name,
        "k": k,
        "max_arity": max_arity,
        "selection": selection,
        "seed": seed,
    }
    version = (
        f"kb{knowledge_base.pk}@{knowledge_base.built_at:%Y%m%dT%H%M%S}"
        f"|k={k}|arity={max_arity}|{selection}|seed={seed}"
    )
    documents = project.documents.order_by("position", "id")
    if job is not None:
        documents = documents.exclude(
            annotation_sets__kind=SetKind.MACHINE, annotation_sets__job=job
        )
    todo = list(documents.only("id", "text", "external_id"))
    total = len(todo)
    if progress:
        progress(0, total, f"labelling {total} documents against {knowledge_base} with k={k}")
    masked_spans = 0
    masked_terms = 0
    for i, document in enumerate(todo, start=1):
        labels = label_document(
            document.text,
            index,
            gazetteer,
            k=k,
            max_arity=max_arity,
            selection=selection,
            seed=seed,
            doc_id=document.external_id,
        )
        spans = labels.entity_spans(document.text)
        if recognizer is not None and spans:
            spans = type_from_overlap(spans, recognizer.predict_batch([document.text])[0])
        machine_set_create(
            document=document,
            source=SetSource.DISTANT,
            source_name=DISTANT_SOURCE_NAME,
            source_version=version,
            spans=spans,
            parameters={**parameters, "explanation": labels.explain_json()},
            job=job,
            created_by=job.created_by if job is not None else None,
        )
        masked_spans += len(spans)
        masked_terms += len(labels.explanations)
        if progress:
            progress(i, total, "")
    return {
        "documents": total,
        "masked_spans": masked_spans,
        "masked_terms": masked_terms,
        "version": version,
        **parameters,
    }


def distant_label_start(
    *,
    project: Project,
    knowledge_base: KnowledgeBase,
    k: int | None = None,
    max_arity: int = 3,
    selection: str = "greedy",
    seed: int = 0,
    created_by: Any = None,
) -> Job:
    return job_create(
        kind=JobKind.DISTANT_LABEL,
        params={
            "knowledge_base_id": knowledge_base.pk,
            "k": k or project.k_anonymity,
            "max_arity": max_arity,
            "selection": selection,
            "seed": seed,
        },
        project=project,
        created_by=created_by,
    )


def masker_train(
    *,
    project: Project,
    knowledge_base: KnowledgeBase,
    params: dict[str, Any],
    job: Job | None = None,
    created_by: Any = None,
    progress: ProgressCallback | None = None,
) -> Any:
    """Label the project's documents against ``knowledge_base`` and train a masking tagger.

    Seed 000 §3.3: Algorithm 1's masks become B-MASK/I-MASK/O training data, so the
    model learns to mask what the adversary's knowledge would expose, also for people
    outside the knowledge base. ``test`` documents are never used; ``dev`` documents
    (or every tenth document) drive early stopping. Registers a MASKER ModelVersion.
    """
    from django.utils.text import slugify

    from jobs.models import ModelKind
    from jobs.services import model_version_create
    from jobs.training import TRAINING_PARAM_KEYS
    from sanitizer.kanon.masker import masker_config, train_masker

    if knowledge_base.status != KbStatus.READY:
        raise ValueError(f"knowledge base {knowledge_base} is not ready ({knowledge_base.status})")
    docs = list(project.documents.exclude(split="test").order_by("position", "id"))
    has_dev = any(d.split == "dev" for d in docs)
    train_docs: list[dict[str, str]] = []
    dev_docs: list[dict[str, str]] = []
    for i, document in enumerate(docs):
        record = {"doc_id": document.external_id, "text": document.text}
        is_dev = document.split == "dev" if has_dev else i % 10 == 9
        (dev_docs if is_dev else train_docs).append(record)
    if not train_docs:
        raise ValueError("the project has no documents to train on")
    index, gazetteer = _load_index(knowledge_base.index_dir, str(knowledge_base.built_at))
    overrides = {k: params[k] for k in TRAINING_PARAM_KEYS if params.get(k) is not None}
    name = params.get("name") or f"masker-{slugify(project.name)[:60] or project.pk}"
    config = masker_config(name=name, **overrides)
    k = int(params.get("k") or project.k_anonymity)
    max_arity = int(params.get("max_arity", 3))
    selection = params.get("selection", "greedy")
    output_dir = Path(settings.MODEL_DIR) / f"{name}-{uuid.uuid4().hex[:12]}"
    result = train_masker(
        config,
        train_docs,
        dev_docs,
        index,
        gazetteer,
        k,
        max_arity,
        selection,
        output_dir,
        progress,
        seed=int(params.get("seed", 0)),
    )
    training = result.training
    return model_version_create(
        kind=ModelKind.MASKER,
        name=name,
        version=training.model_version,
        artefact_path=str(Path(training.output_dir).resolve()),
        base_model=training.base_model,
        config={**config.to_dict(), "k": k, "max_arity": max_arity, "selection": selection},
        training_summary={
            "knowledge_base_id": knowledge_base.pk,
            "train_documents": len(train_docs),
            "dev_documents": len(dev_docs),
            "train_masks_per_doc": result.train_stats.masks_per_doc,
            "dev_masks_per_doc": result.dev_stats.masks_per_doc,
            "epochs_run": training.epochs_run,
            "steps": training.steps,
            "duration_seconds": training.duration_seconds,
        },
        metrics=training.metrics,
        project=project,
        job=job,
        created_by=created_by,
        activate=bool(params.get("activate", False)),
    )
