"""The logged-in user, projects and their members.

Project creation is open to every authenticated user, who becomes the project's
admin: projects are isolated from each other, so a new one grants no access to
anything that exists.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.models import Membership, Project, Role
from annotation.permissions import ADMIN_ROLES
from common.apis import BaseApi, BaseListApi, current_user, parse


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    # Inactive accounts (e.g. TAB annotators from an import) cannot log in or be assigned.
    is_active = serializers.BooleanField()


class ProjectRoleOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="project.id")
    name = serializers.CharField(source="project.name")
    role = serializers.ChoiceField(choices=Role.choices)


class MeApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        email = serializers.EmailField()
        is_staff = serializers.BooleanField()
        is_superuser = serializers.BooleanField()
        projects = ProjectRoleOutputSerializer(many=True)

    @extend_schema(responses=OutputSerializer, summary="The logged-in user and their project roles")
    def get(self, request: Request) -> Response:
        user = current_user(request)
        data = {
            "id": user.pk,
            "username": user.get_username(),
            "email": user.email,
            "is_staff": user.is_staff,
            "is_superuser": user.is_superuser,
            "projects": selectors.user_memberships(user=user),
        }
        return Response(self.OutputSerializer(data).data)


class ProjectDetailApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        name = serializers.CharField()
        description = serializers.CharField()
        guidelines = serializers.CharField()
        k_anonymity = serializers.IntegerField()
        risk_threshold = serializers.FloatField()
        privacy_settings = serializers.JSONField()
        created_at = serializers.DateTimeField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(user=current_user(request), project_id=project_id)
        return Response(self.OutputSerializer(project).data)


class ProjectListApi(BaseListApi):
    @extend_schema(responses=ProjectDetailApi.OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        projects = selectors.project_list(user=current_user(request))
        return self.paginated(request, projects, ProjectDetailApi.OutputSerializer)


_PRIVACY_SETTINGS_HELP = (
    'Optional "recognizer_components": the registered recognizer components the '
    "project's rule-based pre-annotation runs."
)


class ProjectCreateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        description = serializers.CharField(required=False, allow_blank=True)
        guidelines = serializers.CharField(required=False, allow_blank=True)
        k_anonymity = serializers.IntegerField(required=False, min_value=1)
        risk_threshold = serializers.FloatField(required=False, min_value=0, max_value=1)
        privacy_settings = serializers.DictField(required=False, help_text=_PRIVACY_SETTINGS_HELP)

    @extend_schema(
        request=InputSerializer,
        responses={201: ProjectDetailApi.OutputSerializer},
        summary="Create a project; the creator becomes its admin",
    )
    def post(self, request: Request) -> Response:
        data = parse(self.InputSerializer, request.data)
        project = services.project_create(created_by=current_user(request), **data)
        return Response(
            ProjectDetailApi.OutputSerializer(project).data, status=status.HTTP_201_CREATED
        )


class ProjectUpdateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200, required=False)
        description = serializers.CharField(required=False, allow_blank=True)
        guidelines = serializers.CharField(required=False, allow_blank=True)
        k_anonymity = serializers.IntegerField(required=False, min_value=1)
        risk_threshold = serializers.FloatField(required=False, min_value=0, max_value=1)
        privacy_settings = serializers.DictField(required=False, help_text=_PRIVACY_SETTINGS_HELP)

    @extend_schema(request=InputSerializer, responses=ProjectDetailApi.OutputSerializer)
    def patch(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=ADMIN_ROLES,
            action="change the project",
        )
        data = parse(self.InputSerializer, request.data)
        project = services.project_update(project=project, **data)
        return Response(ProjectDetailApi.OutputSerializer(project).data)


class MemberOutputSerializer(serializers.Serializer):
    user = UserOutputSerializer()
    role = serializers.ChoiceField(choices=Role.choices)
    created_at = serializers.DateTimeField()


class MemberListApi(BaseListApi):
    @extend_schema(responses=MemberOutputSerializer(many=True))
    def get(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(user=current_user(request), project_id=project_id)
        return self.paginated(
            request, selectors.project_memberships(project=project), MemberOutputSerializer
        )


def _project_to_manage(request: Request, project_id: int) -> Project:
    return permissions.project_for_user(
        user=current_user(request),
        project_id=project_id,
        roles=ADMIN_ROLES,
        action="manage members",
    )


def _membership_or_404(project: Project, user_id: int) -> Membership:
    membership = selectors.project_membership(project=project, user_id=user_id)
    if membership is None:
        raise NotFound("no such member")
    return membership


class MemberUpdateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        role = serializers.ChoiceField(choices=Role.choices)

    @extend_schema(request=InputSerializer, responses=MemberOutputSerializer)
    def patch(self, request: Request, project_id: int, user_id: int) -> Response:
        project = _project_to_manage(request, project_id)
        membership = _membership_or_404(project, user_id)
        data = parse(self.InputSerializer, request.data)
        membership = services.membership_set(
            project=project, user=membership.user, role=data["role"]
        )
        return Response(MemberOutputSerializer(membership).data)


class MemberDeleteApi(BaseApi):
    @extend_schema(responses={204: None})
    def delete(self, request: Request, project_id: int, user_id: int) -> Response:
        project = _project_to_manage(request, project_id)
        services.membership_delete(membership=_membership_or_404(project, user_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
