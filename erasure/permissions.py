"""Who may erase what through the API (404 before 403, as in ``annotation.permissions``).

A project or one of its documents: the project's admins, and staff (who need no
membership). A user's data: staff only, and only a superuser for a staff account
(``erasure.services.users`` holds that rule).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError

from annotation import permissions, selectors
from annotation.models import Document, Project
from annotation.permissions import ADMIN_ROLES, is_staff


def project_for_eraser(*, user: Any, project_id: int) -> Project:
    if is_staff(user):
        project = selectors.project_get(project_id=project_id)
        if project is None:
            raise NotFound()
        return project
    return permissions.project_for_user(
        user=user, project_id=project_id, roles=ADMIN_ROLES, action="erase the project"
    )


def document_for_eraser(*, user: Any, document_id: int) -> Document:
    document = selectors.document_get(document_id=document_id)
    if document is None:
        raise NotFound()
    if is_staff(user):
        return document
    role = permissions.role_or_404(user=user, project_id=document.project.pk)
    permissions.require_role(role=role, allowed=ADMIN_ROLES, action="erase documents")
    return document


def user_for_eraser(*, user: Any, user_id: int) -> Any:
    if not is_staff(user):
        raise PermissionDenied("only staff may erase a user's data")
    target = get_user_model().objects.filter(pk=user_id).first()
    if target is None:
        raise NotFound()
    return target


def require_confirmation(*, given: str, expected: str, what: str) -> None:
    """The object's name typed back: a wrong one is refused, naming what was expected."""
    if given != expected:
        raise ValidationError({"confirm": [f"type the {what} exactly to confirm the erasure"]})
