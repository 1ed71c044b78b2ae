"""Reads: which profile of which knowledge base a document is about, and what ranks it.

A :class:`~reid.models.ReidTarget` row (chosen in the editor) wins; otherwise the
``target`` an import kept in ``Document.meta`` is looked up in the project's ready
knowledge bases, newest first, and the first one holding that profile is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from annotation.models import Document, Project
from knowledge.models import KbStatus, KnowledgeBase
from reid.loading import LoadedEnsemble, ensemble_for_project, profile_ids
from reid.models import ReidTarget, TargetSource
from sanitizer.reid.profiles import target_of

# The K of "mask until rank > K" when a request does not name one.
DEFAULT_K = 10


class ReidUnavailable(Exception):
    """The document cannot be ranked: no target person, or no ready knowledge base (409)."""


@dataclass(frozen=True)
class ResolvedTarget:
    knowledge_base: KnowledgeBase
    profile_id: str
    source: str  # TargetSource: "ui" (a ReidTarget row) or "import" (Document.meta)


@dataclass(frozen=True)
class ReidContext:
    """A ranked document's person, the ensemble that ranks it and the person's column."""

    document: Document
    target: ResolvedTarget
    ensemble: LoadedEnsemble
    target_index: int

    @property
    def target_name(self) -> str:
        return self.ensemble.names[self.target_index]


def ready_knowledge_bases(*, project: Project) -> QuerySet[KnowledgeBase]:
    """Ready knowledge bases the project may rank against (its own and shared), newest first."""
    return KnowledgeBase.objects.filter(
        Q(project=project) | Q(project__isnull=True), status=KbStatus.READY
    ).order_by("-built_at", "-created_at", "-id")


def meta_target(document: Document) -> str | None:
    """The profile id an import kept for the document (``meta.target``, else the
    generator's ``meta.person_id``, as the library reads documents), if any."""
    return target_of({"meta": document.meta or {}})


def document_target(*, document: Document) -> ResolvedTarget | None:
    """The document's person: the editor's choice, else the imported ``target`` in the
    newest ready knowledge base that holds it; None when neither applies."""
    row = ReidTarget.objects.select_related("knowledge_base").filter(document=document).first()
    if row is not None:
        return ResolvedTarget(row.knowledge_base, row.profile_id, row.source)
    profile_id = meta_target(document)
    if profile_id is None:
        return None
    for knowledge_base in ready_knowledge_bases(project=document.project):
        if profile_id in profile_ids(knowledge_base=knowledge_base):
            return ResolvedTarget(knowledge_base, profile_id, TargetSource.IMPORT)
    return None


def reid_context(*, document: Document, encode_profiles: bool = False) -> ReidContext:
    """Everything a rank of the document needs; :class:`ReidUnavailable` says what is missing.

    ``encode_profiles`` (jobs only): encode the profiles for a dense model that has no
    stored embeddings of the knowledge base, instead of leaving it pending."""
    if not ready_knowledge_bases(project=document.project).exists():
        raise ReidUnavailable(
            "no ready knowledge base in this project: import one (knowledge bases) first"
        )
    target = document_target(document=document)
    if target is None:
        imported = meta_target(document)
        if imported is not None:
            raise ReidUnavailable(
                f"the document's target {imported!r} is in no ready knowledge base of this "
                "project: choose the person's profile"
            )
        raise ReidUnavailable(
            "the document has no target person: choose the person's profile in a knowledge base"
        )
    if target.knowledge_base.status != KbStatus.READY:
        raise ReidUnavailable(
            f"knowledge base {target.knowledge_base.name!r} is not ready "
            f"({target.knowledge_base.status})"
        )
    ensemble = ensemble_for_project(
        project=document.project,
        knowledge_base=target.knowledge_base,
        encode_profiles=encode_profiles,
    )
    index = ensemble.index.get(target.profile_id)
    if index is None:
        # The knowledge base was rebuilt without the chosen profile.
        raise ReidUnavailable(
            f"profile {target.profile_id!r} is no longer in knowledge base "
            f"{target.knowledge_base.name!r}: choose the person's profile again"
        )
    return ReidContext(document=document, target=target, ensemble=ensemble, target_index=index)


def document_reid_info(*, document: Document) -> dict[str, Any]:
    """The panel's header: the target (or None), the knowledge bases to choose from, the
    models that rank and the default K. Loads the ensemble the rank will use."""
    knowledge_bases = list(ready_knowledge_bases(project=document.project))
    target = document_target(document=document)
    models: list[dict[str, str]] = []
    pending: list[str] = []
    name = ""
    ranking_kb = target.knowledge_base if target is not None else None
    if ranking_kb is None and knowledge_bases:
        ranking_kb = knowledge_bases[0]
    if ranking_kb is not None and ranking_kb.status == KbStatus.READY:
        ensemble = ensemble_for_project(project=document.project, knowledge_base=ranking_kb)
        models = ensemble.describe()
        pending = list(ensemble.pending)
        index = ensemble.index.get(target.profile_id) if target is not None else None
        name = ensemble.names[index] if index is not None else ""
    target_out = (
        {
            "profile_id": target.profile_id,
            "name": name,
            "knowledge_base": target.knowledge_base.pk,
            "source": target.source,
        }
        if target is not None
        else None
    )
    return {
        "target": target_out,
        "knowledge_bases": [{"id": kb.pk, "name": kb.name} for kb in knowledge_bases],
        "models": models,
        "pending": pending,
        "k": DEFAULT_K,
    }
