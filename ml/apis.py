"""REST API of model versions: list, detail, comparison with the active model,
activate and deactivate (back to the built-in recognizer).

Shared model versions (no project) are visible to everyone and activated by staff;
a project's are visible to its members and activated by its admins.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions
from common.apis import BaseApi, BaseListApi, current_user, parse
from ml.models import ModelKind, ModelVersion
from ml.permissions import model_version_for_user, require_may_activate
from ml.selectors import model_activation_comparison, model_versions_for_user
from ml.services.model_versions import model_version_activate, model_version_deactivate


class ModelVersionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ModelKind.choices)
    project = serializers.IntegerField(source="project_id", allow_null=True)
    name = serializers.CharField()
    version = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]
    base_model = serializers.CharField()
    config = serializers.JSONField()
    training_summary = serializers.JSONField()
    metrics = serializers.JSONField()
    is_active = serializers.BooleanField()
    # Set when documents or decisions it may have learnt from were erased (erasure app).
    trained_on_erased_data_at = serializers.DateTimeField(allow_null=True)
    # How many documents its training read; null when not recorded.
    trained_on_documents_count = serializers.SerializerMethodField()
    job = serializers.IntegerField(source="job_id", allow_null=True)
    created_at = serializers.DateTimeField()

    def get_trained_on_documents_count(self, obj: ModelVersion) -> int | None:
        documents = obj.trained_on_documents
        return None if documents is None else len(documents)


class ModelVersionListApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        project = serializers.IntegerField(required=False)
        kind = serializers.ChoiceField(choices=ModelKind.choices, required=False)
        is_active = serializers.BooleanField(required=False, allow_null=True, default=None)

    @extend_schema(
        parameters=[FilterSerializer],
        responses=ModelVersionOutputSerializer(many=True),
        summary="Shared model versions and those of your projects",
    )
    def get(self, request: Request) -> Response:
        user = current_user(request)
        filters = parse(self.FilterSerializer, request.query_params)
        project = permissions.project_filter_for_user(
            user=user, project_id=filters.pop("project", None)
        )
        versions = model_versions_for_user(
            user=user, project=project, kind=filters.get("kind"), is_active=filters.get("is_active")
        )
        return self.paginated(request, versions, ModelVersionOutputSerializer)


class ModelVersionDetailApi(BaseApi):
    @extend_schema(responses=ModelVersionOutputSerializer)
    def get(self, request: Request, model_version_id: int) -> Response:
        model_version = model_version_for_user(
            user=current_user(request), model_version_id=model_version_id
        )
        return Response(ModelVersionOutputSerializer(model_version).data)


class ModelFiguresOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True)
    label = serializers.CharField()  # type: ignore[assignment]
    builtin = serializers.BooleanField()
    metrics = serializers.DictField(child=serializers.FloatField())


class ModelVersionComparisonApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        candidate = ModelFiguresOutputSerializer()
        active = ModelFiguresOutputSerializer()
        metric = serializers.CharField(allow_null=True)
        worse = serializers.BooleanField()
        needs_confirm = serializers.BooleanField(
            help_text="Activation needs confirm: worse, or no figure in common to compare."
        )
        message = serializers.CharField()

    @extend_schema(
        responses=OutputSerializer,
        summary="This model's evaluation next to the active model's (or the built-in one's)",
    )
    def get(self, request: Request, model_version_id: int) -> Response:
        model_version = model_version_for_user(
            user=current_user(request), model_version_id=model_version_id
        )
        comparison = model_activation_comparison(model_version=model_version)
        return Response(self.OutputSerializer(comparison).data)


class ModelVersionActivateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        confirm = serializers.BooleanField(
            default=False, help_text="Required to activate a model that evaluates worse."
        )

    @extend_schema(
        request=InputSerializer,
        responses=ModelVersionOutputSerializer,
        summary=(
            "Make this the active model of its kind (project admins; staff for shared "
            "models); a worse model needs confirm"
        ),
    )
    def post(self, request: Request, model_version_id: int) -> Response:
        user = current_user(request)
        model_version = model_version_for_user(user=user, model_version_id=model_version_id)
        require_may_activate(user=user, model_version=model_version)
        data = parse(self.InputSerializer, request.data)
        model_version = model_version_activate(model_version=model_version, confirm=data["confirm"])
        return Response(ModelVersionOutputSerializer(model_version).data)


class ModelVersionDeactivateApi(BaseApi):
    @extend_schema(
        request=None,
        responses=ModelVersionOutputSerializer,
        summary="Stop using this model: back to the built-in recognizer",
    )
    def post(self, request: Request, model_version_id: int) -> Response:
        user = current_user(request)
        model_version = model_version_for_user(user=user, model_version_id=model_version_id)
        require_may_activate(user=user, model_version=model_version)
        model_version = model_version_deactivate(model_version=model_version)
        return Response(ModelVersionOutputSerializer(model_version).data)
