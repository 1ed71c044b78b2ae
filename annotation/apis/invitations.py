"""Invitations: how a user joins a project. An admin invites by username; the invitee
lists their invitations and accepts or declines; only acceptance makes a member.

Inviting answers 202 with the same body whether or not the name is an account, so
the endpoint reveals no usernames.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.models import Invitation, InvitationStatus, Role
from annotation.permissions import ADMIN_ROLES
from common.apis import BaseApi, BaseListApi, current_user, parse

INVITED_MESSAGE = (
    "If an active account with this name exists and is not a member yet, "
    "it has been invited; the membership starts when they accept."
)


class InvitationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    project = serializers.IntegerField(source="project_id")
    project_name = serializers.CharField(source="project.name")
    role = serializers.ChoiceField(choices=Role.choices)
    invited_by = serializers.CharField(source="invited_by.username", allow_null=True)
    status = serializers.ChoiceField(choices=InvitationStatus.choices)
    created_at = serializers.DateTimeField()
    responded_at = serializers.DateTimeField(allow_null=True)


class InvitationCreateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        role = serializers.ChoiceField(choices=Role.choices, default=Role.ANNOTATOR)

    class OutputSerializer(serializers.Serializer):
        detail = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={202: OutputSerializer},
        summary="Invite a user to the project (the same answer whether the user exists or not)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        user = current_user(request)
        project = permissions.project_for_user(
            user=user, project_id=project_id, roles=ADMIN_ROLES, action="manage members"
        )
        data = parse(self.InputSerializer, request.data)
        services.invitation_create(
            project=project, username=data["username"], role=data["role"], invited_by=user
        )
        return Response(
            self.OutputSerializer({"detail": INVITED_MESSAGE}).data,
            status=status.HTTP_202_ACCEPTED,
        )


class InvitationListApi(BaseListApi):
    @extend_schema(
        responses=InvitationOutputSerializer(many=True), summary="Your pending invitations"
    )
    def get(self, request: Request) -> Response:
        invitations = selectors.invitations_pending_for_user(user=current_user(request))
        return self.paginated(request, invitations, InvitationOutputSerializer)


def _own_invitation(request: Request, invitation_id: int) -> Invitation:
    invitation = selectors.invitation_for_invitee(
        user=current_user(request), invitation_id=invitation_id
    )
    if invitation is None:
        raise NotFound("no such invitation")
    return invitation


class InvitationAcceptApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        project = serializers.IntegerField(source="project_id")
        role = serializers.ChoiceField(choices=Role.choices)

    @extend_schema(
        request=None, responses=OutputSerializer, summary="Accept an invitation: join the project"
    )
    def post(self, request: Request, invitation_id: int) -> Response:
        invitation = _own_invitation(request, invitation_id)
        membership = services.invitation_accept(invitation=invitation, user=current_user(request))
        return Response(self.OutputSerializer(membership).data)


class InvitationDeclineApi(BaseApi):
    @extend_schema(
        request=None, responses=InvitationOutputSerializer, summary="Decline an invitation"
    )
    def post(self, request: Request, invitation_id: int) -> Response:
        invitation = _own_invitation(request, invitation_id)
        invitation = services.invitation_decline(invitation=invitation, user=current_user(request))
        return Response(InvitationOutputSerializer(invitation).data)
