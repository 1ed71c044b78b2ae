"""Membership by invitation: nobody joins a project without accepting, and inviting
reveals nothing about which usernames exist."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotation.models import Invitation, InvitationStatus, Membership, Role
from annotation.services import invitation_accept, invitation_create, invitation_decline
from common.errors import DomainError
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import UserFactory


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _invite(world: World, username: str, role: str = "reviewer") -> Any:
    return world.client("admin").post(
        f"/api/projects/{world.project.pk}/invitations/",
        {"username": username, "role": role},
        format="json",
    )


def test_an_invitation_makes_no_member_until_accepted(world: World) -> None:
    guest = UserFactory.create(username="guest")
    response = _invite(world, "guest")
    assert response.status_code == 202, response.content
    assert not Membership.objects.filter(project=world.project, user=guest).exists()
    # Not a member yet: the project is as invisible to the invitee as before.
    assert _client(guest).get(f"/api/projects/{world.project.pk}/").status_code == 404

    listing = _client(guest).get("/api/invitations/").json()
    (invitation,) = listing["results"]
    assert invitation["project_name"] == "matrix project"
    assert invitation["role"] == "reviewer"
    assert invitation["invited_by"] == "admin-user"

    accepted = _client(guest).post(f"/api/invitations/{invitation['id']}/accept/")
    assert accepted.status_code == 200, accepted.content
    assert Membership.objects.get(project=world.project, user=guest).role == Role.REVIEWER
    assert _client(guest).get(f"/api/projects/{world.project.pk}/").status_code == 200
    assert _client(guest).get("/api/invitations/").json()["results"] == []
    again = _client(guest).post(f"/api/invitations/{invitation['id']}/accept/")
    assert again.status_code == 400


def test_a_declined_invitation_makes_no_member(world: World) -> None:
    guest = UserFactory.create(username="guest")
    _invite(world, "guest")
    invitation = Invitation.objects.get(user=guest)
    declined = _client(guest).post(f"/api/invitations/{invitation.pk}/decline/")
    assert declined.status_code == 200, declined.content
    assert declined.json()["status"] == "declined"
    assert not Membership.objects.filter(project=world.project, user=guest).exists()
    assert _client(guest).post(f"/api/invitations/{invitation.pk}/accept/").status_code == 400
    # A new invitation after a decline is allowed (one pending at a time).
    _invite(world, "guest")
    assert Invitation.objects.filter(user=guest, status=InvitationStatus.PENDING).count() == 1


def test_only_the_invitee_can_answer(world: World) -> None:
    guest = UserFactory.create(username="guest")
    _invite(world, "guest")
    invitation = Invitation.objects.get(user=guest)
    for intruder in ("outsider", "admin", "reviewer"):
        client = world.client(intruder)
        assert client.post(f"/api/invitations/{invitation.pk}/accept/").status_code == 404
        assert client.post(f"/api/invitations/{invitation.pk}/decline/").status_code == 404
        assert client.get("/api/invitations/").json()["results"] == []
    assert not Membership.objects.filter(user=guest).exists()


def test_only_project_admins_invite(world: World) -> None:
    UserFactory.create(username="guest")
    url = f"/api/projects/{world.project.pk}/invitations/"
    body = {"username": "guest"}
    assert world.client("reviewer").post(url, body, format="json").status_code == 403
    assert world.client("outsider").post(url, body, format="json").status_code == 404
    assert not Invitation.objects.exists()


def test_inviting_does_not_reveal_whether_a_username_exists(world: World) -> None:
    UserFactory.create(username="guest")
    UserFactory.create(username="sleeper", is_active=False)
    answers = {
        name: _invite(world, name)
        for name in ("guest", "nobody-by-this-name", "sleeper", "reviewer-user", "ａdmin-user")
    }
    bodies = {(r.status_code, r.content) for r in answers.values()}
    assert len(bodies) == 1, bodies
    assert answers["guest"].status_code == 202
    # Only the active non-member got an invitation; the reviewer keeps their role.
    assert list(Invitation.objects.values_list("user__username", flat=True)) == ["guest"]
    assert Membership.objects.get(user=world.users["reviewer"], project=world.project).role == (
        Role.REVIEWER
    )


def test_a_repeated_invitation_updates_the_pending_one(world: World) -> None:
    guest = UserFactory.create(username="guest")
    first = invitation_create(project=world.project, username="guest", role=Role.ANNOTATOR)
    second = invitation_create(project=world.project, username="guest", role=Role.ADMIN)
    assert first is not None and second is not None
    assert first.pk == second.pk
    membership = invitation_accept(invitation=second, user=guest)
    assert membership.role == Role.ADMIN


def test_services_refuse_a_stranger_or_a_second_answer(world: World) -> None:
    guest = UserFactory.create(username="guest")
    invitation = invitation_create(project=world.project, username="guest", role=Role.ANNOTATOR)
    assert invitation is not None
    with pytest.raises(DomainError):
        invitation_accept(invitation=invitation, user=world.users["outsider"])
    invitation_decline(invitation=invitation, user=guest)
    with pytest.raises(DomainError):
        invitation_accept(invitation=invitation, user=guest)
    assert not Membership.objects.filter(user=guest).exists()


def test_home_page_lists_pending_invitations(world: World) -> None:
    guest = UserFactory.create(username="guest")
    _invite(world, "guest")
    invitation = Invitation.objects.get(user=guest)
    client = APIClient()
    client.force_login(guest)
    page = client.get("/").content.decode()
    assert f'data-invitation-id="{invitation.pk}"' in page
    assert "matrix project" in page
    assert "invitation-accept" in page and "invitation-decline" in page
    invitation_decline(invitation=invitation, user=guest)
    assert 'id="invitations"' not in client.get("/").content.decode()
