"""Agreement figures for reviewers: inter-annotator and machine-vs-gold, per document
(with the disputed regions) and pooled over a project."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors
from annotation.permissions import REVIEWER_ROLES
from common.apis import BaseApi, current_user, parse

# Annotator sets still in progress count only when asked for (?in_progress=true).
IN_PROGRESS_PARAMETER = OpenApiParameter(
    "in_progress", bool, description="Count annotator sets that are not submitted yet"
)


class _QuerySerializer(serializers.Serializer):
    in_progress = serializers.BooleanField(default=False)


class DocumentAgreementApi(BaseApi):
    @extend_schema(
        parameters=[IN_PROGRESS_PARAMETER],
        responses=OpenApiTypes.OBJECT,
        summary="Inter-annotator and machine-vs-gold agreement of a document",
    )
    def get(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request),
            document_id=document_id,
            roles=REVIEWER_ROLES,
            action="see agreement",
        )
        include = parse(_QuerySerializer, request.query_params)["in_progress"]
        summary = selectors.document_agreement(document=document, include_in_progress=include)
        summary["disagreements"] = [
            {"start": d["start"], "end": d["end"]}
            for d in selectors.document_disagreements(
                document=document, include_in_progress=include
            )
        ]
        return Response(summary)


class ProjectAgreementApi(BaseApi):
    @extend_schema(
        parameters=[IN_PROGRESS_PARAMETER],
        responses=OpenApiTypes.OBJECT,
        summary="Inter-annotator and machine-vs-gold agreement of a project",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=REVIEWER_ROLES,
            action="see agreement",
        )
        include = parse(_QuerySerializer, request.query_params)["in_progress"]
        return Response(selectors.project_agreement(project=project, include_in_progress=include))
