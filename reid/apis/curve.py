"""REST API of the project's re-identification curve (computed by a ``reid_curve`` job)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions
from common.apis import BaseApi, current_user
from reid.selectors import project_reid_curve


class ProjectReidCurveApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        points = serializers.ListField(
            child=serializers.DictField(),
            help_text="CurvePoints: method, label, rate, share_masked, info_loss, per_model.",
        )
        job = serializers.IntegerField()
        created_at = serializers.DateTimeField()

    @extend_schema(
        responses={200: OutputSerializer},
        summary="Re-identification rate against share of words masked, per masking method",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(user=current_user(request), project_id=project_id)
        curve = project_reid_curve(project=project)
        if curve is None:
            raise NotFound("no re-identification curve yet: run the reid_curve job")
        return Response(self.OutputSerializer(curve).data)
