"""Writes of invitations: membership by consent.

A project admin invites a user by name; the Membership row is made only when the
invitee accepts. Inviting a name that is not an active account, or someone already in
the project, changes nothing and raises nothing: the caller answers every invitation
the same way, so the API cannot be used to learn which usernames exist.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.models import Invitation, InvitationStatus, Membership, Project
from annotation.services.base import UserLike, actor
from annotation.usernames import username_normalised
from common.errors import DomainError


@transaction.atomic
def invitation_create(
    *, project: Project, username: str, role: str, invited_by: UserLike = None
) -> Invitation | None:
    """The pending invitation of ``username`` to ``project`` (a repeated invitation
    updates the role of the pending one), or None when there is nobody to invite."""
    name = username_normalised(username)
    user = get_user_model().objects.filter(username=name, is_active=True).first()
    if user is None or Membership.objects.filter(project=project, user=user).exists():
        return None
    invitation = (
        Invitation.objects.select_for_update()
        .filter(project=project, user=user, status=InvitationStatus.PENDING)
        .first()
    )
    if invitation is None:
        invitation = Invitation(project=project, user=user, status=InvitationStatus.PENDING)
    invitation.role = role
    invitation.invited_by = actor(invited_by)
    invitation.full_clean(validate_constraints=False)
    invitation.save()
    return invitation


def _respond(invitation: Invitation, user: Any, status: str) -> Invitation:
    # Locked so that an accept and a decline sent together cannot both succeed.
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.user_id != user.pk:
        raise DomainError("this invitation is not yours")
    if invitation.status != InvitationStatus.PENDING:
        raise DomainError(f"this invitation was already {invitation.status}")
    invitation.status = status
    invitation.responded_at = timezone.now()
    invitation.full_clean(validate_constraints=False)
    invitation.save()
    return invitation


@transaction.atomic
def invitation_accept(*, invitation: Invitation, user: Any) -> Membership:
    """The invitee joins the project with the invited role."""
    invitation = _respond(invitation, user, InvitationStatus.ACCEPTED)
    membership, _ = Membership.objects.get_or_create(
        project=invitation.project, user=user, defaults={"role": invitation.role}
    )
    return membership


@transaction.atomic
def invitation_decline(*, invitation: Invitation, user: Any) -> Invitation:
    return _respond(invitation, user, InvitationStatus.DECLINED)
