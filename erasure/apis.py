"""REST API of erasure: erase a document, a project or a user's data, and list the
audit records. Each erasure needs a reason and the object's name typed back
(``confirm``): the external id of a document, the name of a project, the username."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from common.apis import BaseApi, BaseListApi, current_user, parse
from erasure import permissions
from erasure.models import REASON_MAX_CHARS, ErasureKind
from erasure.selectors import erasure_records_for_user
from erasure.services import document_erase, project_erase, user_data_erase


class ErasureRecordOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ErasureKind.choices)
    object_id = serializers.IntegerField()
    project_id = serializers.IntegerField(allow_null=True)
    label = serializers.CharField()  # type: ignore[assignment]
    actor = serializers.CharField(source="actor.username", allow_null=True, default=None)
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()
    removed = serializers.JSONField()
    models_deleted = serializers.ListField(child=serializers.IntegerField())
    models_marked = serializers.ListField(child=serializers.IntegerField())
    jobs_cancelled = serializers.ListField(child=serializers.IntegerField())
    files_scheduled = serializers.IntegerField()
    files_removed = serializers.IntegerField()
    files_failed = serializers.IntegerField()
    files_removed_at = serializers.DateTimeField(allow_null=True)


class ErasureInputSerializer(serializers.Serializer):
    confirm = serializers.CharField(
        max_length=500, trim_whitespace=False, help_text="The object's name typed back."
    )
    reason = serializers.CharField(
        max_length=REASON_MAX_CHARS,
        help_text="Why (kept in the audit record; do not name the person).",
    )


_ERASE_HELP = (
    "Removes it for good; files go after the commit. `confirm` must repeat the {what}; "
    "`reason` is kept in the audit record. 201 with the record."
)


class DocumentEraseApi(BaseApi):
    InputSerializer = ErasureInputSerializer

    @extend_schema(
        request=InputSerializer,
        responses={201: ErasureRecordOutputSerializer},
        summary="Erase a document (project admins, staff)",
        description=_ERASE_HELP.format(what="document's external id"),
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_eraser(user=user, document_id=document_id)
        data = parse(self.InputSerializer, request.data)
        permissions.require_confirmation(
            given=data["confirm"], expected=document.external_id, what="document's external id"
        )
        record = document_erase(document=document, actor=user, reason=data["reason"])
        return Response(ErasureRecordOutputSerializer(record).data, status=status.HTTP_201_CREATED)


class ProjectEraseApi(BaseApi):
    InputSerializer = ErasureInputSerializer

    @extend_schema(
        request=InputSerializer,
        responses={201: ErasureRecordOutputSerializer},
        summary="Erase a project with all its data (project admins, staff)",
        description=_ERASE_HELP.format(what="project's name"),
    )
    def post(self, request: Request, project_id: int) -> Response:
        user = current_user(request)
        project = permissions.project_for_eraser(user=user, project_id=project_id)
        data = parse(self.InputSerializer, request.data)
        permissions.require_confirmation(
            given=data["confirm"], expected=project.name, what="project's name"
        )
        record = project_erase(project=project, actor=user, reason=data["reason"])
        return Response(ErasureRecordOutputSerializer(record).data, status=status.HTTP_201_CREATED)


class UserDataEraseApi(BaseApi):
    InputSerializer = ErasureInputSerializer

    @extend_schema(
        request=InputSerializer,
        responses={201: ErasureRecordOutputSerializer},
        summary="Erase a user's data and anonymise the account (staff)",
        description=_ERASE_HELP.format(what="username"),
    )
    def post(self, request: Request, user_id: int) -> Response:
        actor = current_user(request)
        user = permissions.user_for_eraser(user=actor, user_id=user_id)
        data = parse(self.InputSerializer, request.data)
        permissions.require_confirmation(
            given=data["confirm"], expected=user.get_username(), what="username"
        )
        record = user_data_erase(user=user, actor=actor, reason=data["reason"])
        return Response(ErasureRecordOutputSerializer(record).data, status=status.HTTP_201_CREATED)


class ErasureListApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        kind = serializers.ChoiceField(choices=ErasureKind.choices, required=False)

    @extend_schema(
        parameters=[FilterSerializer],
        responses=ErasureRecordOutputSerializer(many=True),
        summary="Erasure audit records (staff: all; others: their own)",
    )
    def get(self, request: Request) -> Response:
        filters = parse(self.FilterSerializer, request.query_params)
        records = erasure_records_for_user(user=current_user(request), kind=filters.get("kind"))
        return self.paginated(request, records, ErasureRecordOutputSerializer)
