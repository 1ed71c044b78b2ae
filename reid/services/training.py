"""Training the dense re-identifier from a project's documents (the ``train_reid`` job).

It learns from the project's non-test documents whose person is a profile of the
knowledge base (:func:`training_targets`), optionally joined by generated biographies
of generated people (``synthetic_docs``, half long and half short): a project rarely has
enough documents of its own, and seed 004 trains on generated people only. Every profile
of the knowledge base is a candidate in the loss, so the model learns to rank among the
people the rank will be computed against.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import uuid
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.text import slugify

from annotation.models import Project
from annotation.services import ProgressCallback
from common.errors import DomainError
from knowledge.models import KnowledgeBase
from ml.models import ModelKind, ModelVersion
from ml.selectors import training_documents
from ml.services.model_versions import model_version_activate, model_version_create
from reid.loading import profile_ids, read_profiles, reid_model_version
from reid.models import ReidTarget
from reid.selectors import ready_knowledge_bases
from reid.selectors.targets import meta_target
from sanitizer.kanon.kb import Person
from sanitizer.reid.base import ReidDocument
from sanitizer.reid.profiles import load_profiles, target_of
from sanitizer.training.config import default_base_model

# Generated people get ids of their own: the generator numbers people from 0 for every
# seed, so they would otherwise collide with a generated knowledge base's ids.
SYNTHETIC_PREFIX = "synthetic:"
# The figure two re-identifiers are compared by before one replaces the other.
COMPARED_METRIC = "top1_masked30"
DEFAULT_EPOCHS = 4


def synthetic_training_data(*, n_docs: int, seed: int) -> tuple[list[Person], list[ReidDocument]]:
    """``n_docs`` generated people and one generated biography of each: half of them long
    (~150 words, facts among filler), the others a few facts."""
    profiles: list[Person] = []
    documents: list[ReidDocument] = []
    for style, count in (("long", n_docs - n_docs // 2), ("short", n_docs // 2)):
        if count:
            # A seed unlike any knowledge base's: the people must be new ones.
            people, docs = _generated(count, seed + 7919, style)
            prefix = f"{SYNTHETIC_PREFIX}{style}:"
            profiles += [dataclasses.replace(p, id=prefix + p.id) for p in people]
            documents += [
                ReidDocument(f"{prefix}{d['doc_id']}", d["text"], prefix + target)
                for d in docs
                if (target := target_of(d))
            ]
    return profiles, documents


def _generated(n: int, seed: int, style: str) -> tuple[list[Person], list[dict[str, Any]]]:
    from sanitizer.kanon.synthetic import generate_dataset

    with tempfile.TemporaryDirectory(prefix="reid-synthetic-") as folder:
        dataset = generate_dataset(folder, n_people=n, n_docs=n, seed=seed, style=style)
        docs = json.loads(Path(dataset.docs_path).read_text(encoding="utf-8"))
        return load_profiles(dataset.kb_path), docs


def training_targets(*, project: Project, knowledge_base: KnowledgeBase) -> list[ReidDocument]:
    """The project's non-test documents whose person is a profile of ``knowledge_base``: the
    editor's choice when it names this knowledge base, else the imported ``target``."""
    chosen = dict(
        ReidTarget.objects.filter(document__project=project).values_list(
            "document_id", "knowledge_base_id"
        )
    )
    rows = dict(
        ReidTarget.objects.filter(
            document__project=project, knowledge_base=knowledge_base
        ).values_list("document_id", "profile_id")
    )
    known = profile_ids(knowledge_base=knowledge_base)
    out = []
    for document, _held_out in training_documents(project=project):
        # A choice in another knowledge base says this one does not hold the person.
        target = rows.get(document.pk) if document.pk in chosen else meta_target(document)
        if target is not None and target in known:
            out.append(ReidDocument(str(document.pk), document.text, target))
    return out


def _activate_if_better(model_version: ModelVersion) -> ModelVersion:
    """Activate unless the project's active re-identifier does better on held-out
    documents with 30% of their words masked; the summary says why when it stays off."""
    active = reid_model_version(project=model_version.project)
    mine = model_version.metrics.get(COMPARED_METRIC)
    theirs = active.metrics.get(COMPARED_METRIC) if active is not None else None
    if (
        active is None
        or active.project_id != model_version.project_id
        or theirs is None
        or (mine is not None and mine >= theirs)
    ):
        return model_version_activate(model_version=model_version, confirm=True)
    model_version.training_summary = {
        **model_version.training_summary,
        "activation": f"not activated: {COMPARED_METRIC} {mine} < {theirs} of {active.label}",
    }
    model_version.save(update_fields=["training_summary"])
    return model_version


def reid_train(
    *,
    project: Project,
    params: dict[str, Any],
    job: Any = None,
    created_by: Any = None,
    progress: ProgressCallback | None = None,
) -> ModelVersion:
    """Train the bi-encoder on the project's documents (plus generated ones when asked)
    against the knowledge base, save it under MODEL_DIR and register it (kind
    REIDENTIFIER, metrics from held-out people)."""
    from sanitizer.reid.dense import precompute_embeddings
    from sanitizer.reid.training import train_dense

    knowledges = ready_knowledge_bases(project=project)
    if params.get("knowledge_base_id") is not None:
        knowledges = knowledges.filter(pk=params["knowledge_base_id"])
    knowledge_base = knowledges.first()
    if knowledge_base is None:
        raise DomainError("no ready knowledge base in this project to train against")
    kb_profiles = profiles = read_profiles(knowledge_base)
    documents = training_targets(project=project, knowledge_base=knowledge_base)
    own = len(documents)
    # The trainer holds some people out for its figures; which is not known here, so
    # every project document given to it counts (generated ones are no documents).
    document_ids = [int(document.doc_id) for document in documents]
    n_synthetic = int(params.get("synthetic_docs") or 0)
    seed = int(params.get("seed") or 0)
    if n_synthetic:
        if progress:
            progress(0, 1, f"generating {n_synthetic} synthetic biographies")
        extra_profiles, extra_docs = synthetic_training_data(n_docs=n_synthetic, seed=seed)
        profiles = [*profiles, *extra_profiles]
        documents += extra_docs
    if len(documents) < 2:
        raise DomainError(
            "no training documents: train_reid learns from non-test documents whose target is "
            f"a profile of {knowledge_base.name!r} (or ask for synthetic_docs)"
        )
    name = params.get("name") or f"reid-{slugify(project.name)[:60] or project.pk}"
    output = Path(settings.MODEL_DIR) / f"{name}-{uuid.uuid4().hex[:12]}"
    epochs = int(params.get("epochs") or DEFAULT_EPOCHS)

    def report(done: int, total: int | None, message: str) -> None:
        if progress:
            progress(done, total or 0, message)

    base_model = params.get("base_model") or settings.TRANSFORMER_BASE_MODEL or None
    try:
        result = train_dense(
            profiles,
            documents,
            output,
            epochs=epochs,
            base_model=base_model,
            batch_size=int(params.get("batch_size") or 32),
            seed=seed,
            progress=report,
        )
    except (ValueError, OSError) as exc:
        raise DomainError(str(exc)) from exc
    # The live rank never encodes profiles in a request (see reid.loading): store the
    # knowledge base's embeddings now, so the model ranks as soon as it is active.
    report(0, 1, f"encoding the {len(kb_profiles)} profiles of {knowledge_base.name}")
    if not precompute_embeddings(output, kb_profiles):
        raise DomainError(f"could not store the profile embeddings in {output}")
    metrics = {k: v for k, v in result.metrics.items() if isinstance(v, int | float | str)}
    with transaction.atomic():
        model_version = _register(
            project=project,
            name=name,
            version=result.version,
            output=output,
            base_model=base_model or default_base_model(),
            metrics=metrics,
            params=params,
            summary={
                "knowledge_base_id": knowledge_base.pk,
                "knowledge_base": knowledge_base.name,
                "project_documents": own,
                "synthetic_documents": n_synthetic,
                "embedded_profiles": len(kb_profiles),
                "seed": seed,
            },
            job=job,
            created_by=created_by,
            document_ids=document_ids,
        )
    return model_version


def _register(
    *,
    project: Project,
    name: str,
    version: str,
    output: Path,
    base_model: str,
    metrics: dict[str, Any],
    params: dict[str, Any],
    summary: dict[str, Any],
    job: Any,
    created_by: Any,
    document_ids: list[int],
) -> ModelVersion:
    model_version = model_version_create(
        kind=ModelKind.REIDENTIFIER,
        name=name,
        version=version,
        artefact_path=str(output.resolve()),
        base_model=base_model,
        config={
            "model": "dense",
            "epochs": int(params.get("epochs") or DEFAULT_EPOCHS),
            "batch_size": int(params.get("batch_size") or 32),
        },
        training_summary=summary,
        metrics=metrics,
        project=project,
        job=job,
        created_by=created_by,
        trained_on_documents=document_ids,
    )
    if params.get("activate"):
        model_version = _activate_if_better(model_version)
    return model_version
