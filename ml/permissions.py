"""Who may see and activate a model version (raises the API's 403/404)."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import PermissionDenied

from annotation import permissions
from annotation.permissions import ADMIN_ROLES
from ml.models import ModelVersion
from ml.selectors import model_version_find


def model_version_for_user(*, user: Any, model_version_id: int) -> ModelVersion:
    """Shared models are visible to everyone; a project's to its members (else 404)."""
    model_version = model_version_find(model_version_id=model_version_id)
    if model_version is not None and model_version.project is None:
        return model_version
    permissions.role_or_404(
        user=user,
        project_id=model_version.project.pk if model_version and model_version.project else None,
    )
    assert model_version is not None
    return model_version


def require_may_activate(*, user: Any, model_version: ModelVersion) -> None:
    """Project admins activate their project's models; staff the shared ones."""
    if model_version.project is None:
        if not permissions.is_staff(user):
            raise PermissionDenied("only staff may activate shared models")
        return
    role = permissions.role_or_404(user=user, project_id=model_version.project.pk)
    permissions.require_role(role=role, allowed=ADMIN_ROLES, action="activate models")
