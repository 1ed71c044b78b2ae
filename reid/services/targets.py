"""Choosing (and clearing) the knowledge-base profile a document is about."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from annotation.models import Document
from knowledge.models import KbStatus, KnowledgeBase
from reid.loading import ensemble_for_project
from reid.models import PROFILE_ID_MAX, ReidTarget, TargetSource


def _check_knowledge_base(document: Document, knowledge_base: KnowledgeBase) -> None:
    in_scope = KnowledgeBase.objects.filter(
        Q(project_id=document.project_id) | Q(project__isnull=True), pk=knowledge_base.pk
    ).exists()
    if not in_scope:
        raise ValidationError(
            {"knowledge_base": "the knowledge base belongs to another project"}, code="scope"
        )
    if knowledge_base.status != KbStatus.READY:
        raise ValidationError(
            {"knowledge_base": f"the knowledge base is not ready ({knowledge_base.status})"},
            code="not_ready",
        )


def _check_profile_id(profile_id: str) -> None:
    if not profile_id or len(profile_id) > PROFILE_ID_MAX or "\x00" in profile_id:
        raise ValidationError(
            {"profile_id": f"a profile id is 1 to {PROFILE_ID_MAX} characters, without NUL"},
            code="invalid",
        )


@transaction.atomic
def reid_target_set(
    *,
    document: Document,
    knowledge_base: KnowledgeBase,
    profile_id: str,
    user: Any = None,
    source: str = TargetSource.UI,
) -> ReidTarget:
    """Make ``profile_id`` of ``knowledge_base`` the document's person (replacing any choice).

    The knowledge base must be ready and usable by the document's project (its own or a
    shared one), and must hold the profile: a choice the rank could not use is refused.
    """
    _check_profile_id(profile_id)
    _check_knowledge_base(document, knowledge_base)
    # The loaded ensemble is what the rank uses next, so checking against it warms the cache.
    ensemble = ensemble_for_project(project=document.project, knowledge_base=knowledge_base)
    if profile_id not in ensemble.index:
        raise ValidationError(
            {"profile_id": f"no profile {profile_id!r} in knowledge base {knowledge_base.name!r}"},
            code="unknown_profile",
        )
    # Lock the document first: two first choices at once would otherwise both insert and
    # the second would hit the one-target-per-document constraint (a 500, not a choice).
    Document.objects.select_for_update().filter(pk=document.pk).first()
    target = ReidTarget.objects.select_for_update().filter(document=document).first() or ReidTarget(
        document=document
    )
    target.knowledge_base = knowledge_base
    target.profile_id = profile_id
    target.source = source
    target.set_by = user if user is not None and user.is_authenticated else None
    target.full_clean()
    target.save()
    return target


@transaction.atomic
def reid_target_clear(*, document: Document) -> bool:
    """Forget the document's chosen profile (an imported ``target`` applies again)."""
    deleted, _ = ReidTarget.objects.filter(document=document).delete()
    return deleted > 0
