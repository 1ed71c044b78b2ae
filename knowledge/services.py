"""Building knowledge bases and distant labelling of a project's documents (services).

The heavy lifting is plain Python in ``sanitizer.kanon``; these functions move its
inputs and outputs in and out of the database.
"""

from __future__ import annotations

import functools
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from annotation.models import Document, Project, SetSource
from annotation.services import ProgressCallback, machine_run_store
from jobs.models import Job
from jobs.services import job_create
from knowledge.models import KbFormat, KbStatus, KnowledgeBase
from knowledge.validators import DISTANT_LABEL, KB_IMPORT
from ml.loading import recognizer_load, type_from_overlap
from ml.models import ModelKind
from ml.selectors import training_documents
from ml.services.model_versions import trained_model_register
from ml.services.training import TRAINING_PARAM_KEYS
from sanitizer.kanon.algorithm import selection_functions
from sanitizer.types import EntitySpan

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
                kind=KB_IMPORT,
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
    if selection not in selection_functions:
        raise ValueError(f"selection must be one of {selection_functions.names()}")
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
    explanations: dict[int, Any] = {}
    masked_terms = 0

    def label_batch(documents: Sequence[Document]) -> list[list[EntitySpan]]:
        nonlocal masked_terms
        out = []
        for document in documents:
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
            explanations[document.pk] = labels.explain_json()
            masked_terms += len(labels.explanations)
            out.append(spans)
        return out

    summary = machine_run_store(
        project=project,
        source=SetSource.DISTANT,
        source_name=DISTANT_SOURCE_NAME,
        source_version=version,
        label_batch=label_batch,
        parameters=parameters,
        job=job,
        # One document at a time: labelling a document can take seconds.
        batch_size=1,
        progress=progress,
        start_message=lambda total, skipped: (
            f"labelling {total} documents against {knowledge_base} with k={k}"
        ),
        document_parameters=lambda document: {"explanation": explanations.pop(document.pk)},
    )
    return {
        "documents": summary.documents,
        "masked_spans": summary.spans,
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
        kind=DISTANT_LABEL,
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
    outside the knowledge base. The documents and the held-out ones are those of
    ``ml.selectors.training_documents``. Registers a MASKER ModelVersion.
    """
    from sanitizer.kanon.masker import masker_config, train_masker

    if knowledge_base.status != KbStatus.READY:
        raise ValueError(f"knowledge base {knowledge_base} is not ready ({knowledge_base.status})")
    train_docs: list[dict[str, str]] = []
    dev_docs: list[dict[str, str]] = []
    document_ids: list[int] = []  # train and dev (dev chooses the kept checkpoint)
    for document, is_dev in training_documents(project=project):
        record = {"doc_id": document.external_id, "text": document.text}
        (dev_docs if is_dev else train_docs).append(record)
        document_ids.append(document.pk)
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
    return trained_model_register(
        kind=ModelKind.MASKER,
        name=name,
        result=result.training,
        config={**config.to_dict(), "k": k, "max_arity": max_arity, "selection": selection},
        training_summary={
            "knowledge_base_id": knowledge_base.pk,
            "train_documents": len(train_docs),
            "dev_documents": len(dev_docs),
            "train_masks_per_doc": result.train_stats.masks_per_doc,
            "dev_masks_per_doc": result.dev_stats.masks_per_doc,
        },
        project=project,
        job=job,
        created_by=created_by,
        activate=bool(params.get("activate", False)),
        trained_on_documents=document_ids,
    )
