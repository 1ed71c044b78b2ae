"""Writes of projects and their members."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Membership, Project, Role
from annotation.services.base import UserLike, actor
from common.errors import DomainError
from sanitizer.recognizer import components as _builtin_components  # noqa: F401  (registers them)
from sanitizer.recognizer.registry import component_registry

# Key of ``Project.privacy_settings`` naming the recognizer components the project's
# rule-based pre-annotation runs (default: the recognizer's own configuration).
RECOGNIZER_COMPONENTS_KEY = "recognizer_components"

_UPDATABLE = {
    "name",
    "description",
    "guidelines",
    "k_anonymity",
    "risk_threshold",
    "privacy_settings",
}


def _validate_privacy_settings(settings: dict[str, Any]) -> None:
    if not isinstance(settings, dict):
        raise DomainError("privacy_settings must be an object")
    if RECOGNIZER_COMPONENTS_KEY not in settings:
        return
    names = settings[RECOGNIZER_COMPONENTS_KEY]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise DomainError(
            f"privacy_settings.{RECOGNIZER_COMPONENTS_KEY} must be a non-empty list of "
            "recognizer component names"
        )
    unknown = [name for name in names if name not in component_registry]
    if unknown:
        known = ", ".join(component_registry.names())
        raise DomainError(f"unknown recognizer component(s) {', '.join(unknown)} (known: {known})")


def _check_name_free(project: Project) -> None:
    """Names are unique per creator (``project_unique_name_per_creator``); said on the
    name field, and only about the creator's own projects."""
    taken = Project.objects.filter(created_by=project.created_by, name=project.name).exclude(
        pk=project.pk
    )
    if taken.exists():
        raise ValidationError({"name": ["this creator already has a project with this name"]})


@transaction.atomic
def project_create(
    *,
    name: str,
    created_by: UserLike = None,
    description: str = "",
    guidelines: str = "",
    k_anonymity: int = 5,
    risk_threshold: float = 0.5,
    privacy_settings: dict[str, Any] | None = None,
) -> Project:
    _validate_privacy_settings(privacy_settings or {})
    project = Project(
        name=name,
        description=description,
        guidelines=guidelines,
        k_anonymity=k_anonymity,
        risk_threshold=risk_threshold,
        privacy_settings=privacy_settings or {},
        created_by=actor(created_by),
    )
    _check_name_free(project)
    project.full_clean()
    project.save()
    creator = actor(created_by)
    if creator is not None:
        Membership.objects.create(project=project, user=creator, role=Role.ADMIN)
    return project


@transaction.atomic
def project_update(*, project: Project, **changes: Any) -> Project:
    unknown = set(changes) - _UPDATABLE
    if unknown:
        raise DomainError(f"cannot change {', '.join(sorted(unknown))}")
    if "privacy_settings" in changes:
        _validate_privacy_settings(changes["privacy_settings"])
    for key, value in changes.items():
        setattr(project, key, value)
    _check_name_free(project)
    project.full_clean()
    project.save()
    return project


def _check_keeps_an_admin(membership: Membership) -> None:
    project = membership.project
    if (
        membership.role == Role.ADMIN
        and not project.memberships.filter(role=Role.ADMIN).exclude(pk=membership.pk).exists()
    ):
        raise DomainError("a project keeps at least one admin")


@transaction.atomic
def membership_set(*, project: Project, user: Any, role: str) -> Membership:
    membership, _ = Membership.objects.get_or_create(
        project=project, user=user, defaults={"role": role}
    )
    if membership.role != role:
        _check_keeps_an_admin(membership)
        membership.role = role
    membership.full_clean()
    membership.save()
    return membership


@transaction.atomic
def membership_delete(*, membership: Membership) -> None:
    _check_keeps_an_admin(membership)
    membership.delete()
