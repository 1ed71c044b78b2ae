"""Reads of invitations: the invitee's own, never anyone else's."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from annotation.models import Invitation, InvitationStatus


def invitations_pending_for_user(*, user: Any) -> QuerySet[Invitation]:
    return (
        Invitation.objects.filter(user=user, status=InvitationStatus.PENDING)
        .select_related("project", "invited_by")
        .order_by("-created_at", "-id")
    )


def invitation_for_invitee(*, user: Any, invitation_id: int) -> Invitation | None:
    """One of the user's invitations; another user's is as good as missing."""
    return (
        Invitation.objects.filter(user=user, pk=invitation_id)
        .select_related("project", "invited_by")
        .first()
    )
