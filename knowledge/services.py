"""Building knowledge bases and distant labelling of a project's documents (services).

The heavy lifting is plain Python in ``workers.distant``; these functions move its
inputs and outputs in and out of the database.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import Project, SetKind, SetSource
from annotation.services import machine_set_create
from jobs.models import Job, JobKind
from jobs.services import job_create
from knowledge.models import KbFormat, KbStatus, KnowledgeBase
from workers.types import EntitySpan

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
    from workers.distant.gazetteer import Gazetteer
    from workers.distant.index import build_index
    from workers.distant.kb import read_kb

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
    from workers.distant.labelling import load_or_build

    return load_or_build(index_dir=index_dir)


def _typed(spans: list[EntitySpan], typed: list[EntitySpan]) -> list[EntitySpan]:
    """Give each distant span the semantic type of the recognizer span it overlaps most."""
    out = []
    for span in spans:
        best, best_overlap = None, 0
        for candidate in typed:
            overlap = min(span.end, candidate.end) - max(span.start, candidate.start)
            if overlap > best_overlap:
                best, best_overlap = candidate, overlap
        label = best.label if best is not None else span.label
        out.append(
            EntitySpan(
                start=span.start,
                end=span.end,
                label=label,
                text=span.text,
                source=span.source,
                identifier_type=span.identifier_type,
                attrs=span.attrs,
            )
        )
    return out


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
    from workers.distant.labelling import label_document

    if knowledge_base.status != KbStatus.READY:
        raise ValueError(f"knowledge base {knowledge_base} is not ready ({knowledge_base.status})")
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {SELECTIONS}")
    index, gazetteer = _load_index(knowledge_base.index_dir, str(knowledge_base.built_at))
    recognizer = None
    if type_with_recognizer:
        from annotation.preannotation import recognizer_load

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
            spans = _typed(spans, recognizer.predict_batch([document.text])[0])
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
