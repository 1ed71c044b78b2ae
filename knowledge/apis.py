"""REST API of adversary knowledge bases and distant labelling.

Knowledge bases belong to a project (its admins upload and use them) or are
shared (visible to every project, managed by staff). Outsiders get 404.
"""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import UploadedFile
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import FormParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions
from annotation.apis.jobs import JobOutputSerializer
from annotation.permissions import ADMIN_ROLES
from common.apis import BaseApi, BaseListApi, current_user, parse
from common.parsers import UploadLimitMultiPartParser, upload_max_bytes
from common.uploads import upload_save
from knowledge.models import KbFormat, KbStatus
from knowledge.selectors import (
    knowledge_base_for_project,
    knowledge_base_for_user,
    knowledge_bases_for_user,
)
from knowledge.services import distant_label_start, knowledge_base_create
from sanitizer.kanon.algorithm import selection_functions

_SUFFIX = {KbFormat.JSONL: ".jsonl", KbFormat.WIKIDATA: ".json"}


class KnowledgeBaseOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    project = serializers.IntegerField(source="project_id", allow_null=True)
    source_format = serializers.ChoiceField(choices=KbFormat.choices)
    status = serializers.ChoiceField(choices=KbStatus.choices)
    n_persons = serializers.IntegerField()
    n_terms = serializers.IntegerField()
    index_bytes = serializers.IntegerField()
    params = serializers.JSONField()
    job = serializers.IntegerField(source="job_id", allow_null=True)
    created_at = serializers.DateTimeField()
    built_at = serializers.DateTimeField(allow_null=True)


class KnowledgeBaseListApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        project = serializers.IntegerField(required=False)

    @extend_schema(
        parameters=[FilterSerializer],
        responses=KnowledgeBaseOutputSerializer(many=True),
        summary="Knowledge bases of your projects, and shared ones",
    )
    def get(self, request: Request) -> Response:
        user = current_user(request)
        filters = parse(self.FilterSerializer, request.query_params)
        if "project" in filters:
            permissions.role_or_404(user=user, project_id=filters["project"])
        qs = knowledge_bases_for_user(user=user, project_id=filters.get("project"))
        return self.paginated(request, qs, KnowledgeBaseOutputSerializer)


class KnowledgeBaseDetailApi(BaseApi):
    @extend_schema(responses=KnowledgeBaseOutputSerializer, summary="One knowledge base")
    def get(self, request: Request, knowledge_base_id: int) -> Response:
        kb = knowledge_base_for_user(
            user=current_user(request), knowledge_base_id=knowledge_base_id
        )
        if kb is None:
            raise NotFound()
        return Response(KnowledgeBaseOutputSerializer(kb).data)


class KnowledgeBaseUploadApi(BaseApi):
    parser_classes = [UploadLimitMultiPartParser, FormParser]
    upload_kind = "knowledge"  # settings.UPLOAD_MAX_BYTES: over it, 413

    class InputSerializer(serializers.Serializer):
        file = serializers.FileField()
        format = serializers.ChoiceField(choices=KbFormat.choices)
        name = serializers.CharField(max_length=200)
        max_df = serializers.FloatField(
            required=False, min_value=0, help_text="Never index terms shared by more people."
        )
        language = serializers.CharField(required=False, max_length=16)

    class OutputSerializer(serializers.Serializer):
        knowledge_base = KnowledgeBaseOutputSerializer()
        job = JobOutputSerializer()

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={202: OutputSerializer},
        summary="Upload a knowledge base (JSONL profiles or a Wikidata dump) and index it",
    )
    def post(self, request: Request, project_id: int) -> Response:
        user = current_user(request)
        project = permissions.project_for_user(
            user=user, project_id=project_id, roles=ADMIN_ROLES, action="add knowledge bases"
        )
        data = parse(self.InputSerializer, request.data)
        upload: UploadedFile = data["file"]
        path = upload_save(
            upload=upload,
            suffix=_SUFFIX[data["format"]],
            subdir="knowledge",
            max_bytes=upload_max_bytes(self.upload_kind),
        )
        params: dict[str, Any] = {k: data[k] for k in ("max_df", "language") if k in data}
        kb = knowledge_base_create(
            name=data["name"],
            source_path=path,
            source_format=data["format"],
            project=project,
            params=params,
            created_by=user,
        )
        body = {"knowledge_base": kb, "job": kb.job}
        return Response(self.OutputSerializer(body).data, status=status.HTTP_202_ACCEPTED)


class DistantLabelStartApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        knowledge_base = serializers.IntegerField()
        k = serializers.IntegerField(required=False, min_value=1, help_text="Default: project k")
        max_arity = serializers.IntegerField(default=3, min_value=1, max_value=6)
        # Any registered selection function: checked per request, so one registered
        # after this module was imported is accepted too.
        selection = serializers.CharField(default="greedy")
        seed = serializers.IntegerField(default=0)

        def validate_selection(self, value: str) -> str:
            if value not in selection_functions:
                names = ", ".join(selection_functions.names())
                raise serializers.ValidationError(f"must be one of {names}")
            return value

    @extend_schema(
        request=InputSerializer,
        responses={201: JobOutputSerializer},
        summary="Label the project's documents for k-anonymity against a knowledge base",
    )
    def post(self, request: Request, project_id: int) -> Response:
        user = current_user(request)
        project = permissions.project_for_user(
            user=user, project_id=project_id, roles=ADMIN_ROLES, action="start jobs"
        )
        data = parse(self.InputSerializer, request.data)
        kb = knowledge_base_for_project(project=project, knowledge_base_id=data["knowledge_base"])
        if kb is None:
            raise serializers.ValidationError({"knowledge_base": "no such knowledge base here"})
        if kb.status != KbStatus.READY:
            raise serializers.ValidationError({"knowledge_base": f"it is {kb.status}"})
        job = distant_label_start(
            project=project,
            knowledge_base=kb,
            k=data.get("k"),
            max_arity=data["max_arity"],
            selection=data["selection"],
            seed=data["seed"],
            created_by=user,
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_201_CREATED)
