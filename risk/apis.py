"""REST API of the privacy/utility dial: re-solving a document's stored assessment and the
project's curve of share masked against threshold. The risk job itself is started through
the job API (kind ``risk_assess``)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions
from annotation.permissions import REVIEWER_ROLES
from common.apis import BaseApi, current_user, parse
from risk.selectors import assessment_solve, risk_assessment_latest, risk_curve
from risk.validators import K_BOUNDS, MAX_ARITY_BOUNDS, THRESHOLD_BOUNDS
from sanitizer.risk import risk_measures

MAX_THRESHOLDS = 40


class NoAssessment(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "no risk assessment yet: run the risk job"
    default_code = "no_assessment"


class ReasonSerializer(serializers.Serializer):
    measure = serializers.CharField()
    text = serializers.CharField()
    score = serializers.FloatField()


class MaskSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    entity = serializers.CharField()
    # A field named "label" shadows Field.label (a string) as DRF declares it.
    label = serializers.CharField()  # type: ignore[assignment]
    reasons = ReasonSerializer(many=True)


class PointSerializer(serializers.Serializer):
    threshold = serializers.FloatField()
    share_masked = serializers.FloatField()


class RiskSolveApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        threshold = serializers.FloatField(
            required=False, min_value=THRESHOLD_BOUNDS[0], max_value=THRESHOLD_BOUNDS[1]
        )
        k = serializers.IntegerField(required=False, min_value=K_BOUNDS[0], max_value=K_BOUNDS[1])
        max_arity = serializers.IntegerField(
            required=False, min_value=MAX_ARITY_BOUNDS[0], max_value=MAX_ARITY_BOUNDS[1]
        )
        measures = serializers.ListField(
            child=serializers.ChoiceField(choices=risk_measures.names()),
            required=False,
            allow_empty=False,
            max_length=8,
        )

    class OutputSerializer(serializers.Serializer):
        masks = MaskSerializer(many=True)
        share_masked = serializers.FloatField()
        risky = serializers.IntegerField()
        solve_ms = serializers.FloatField()
        settings = serializers.JSONField()

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        summary="Re-solve a document's masking with other dial settings (nothing is stored)",
    )
    def post(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request), document_id=document_id
        )
        data = parse(self.InputSerializer, request.data)
        assessment = risk_assessment_latest(document=document)
        if assessment is None:
            raise NoAssessment()
        masking = assessment_solve(assessment=assessment, requested=data)
        body = {
            "masks": masking.masks(),
            "share_masked": masking.share_masked,
            "risky": masking.risky,
            "solve_ms": masking.solve_ms,
            "settings": masking.settings,
        }
        return Response(self.OutputSerializer(body).data)


class RiskCurveApi(BaseApi):
    class FilterSerializer(serializers.Serializer):
        thresholds = serializers.CharField(
            max_length=400, help_text="Comma-separated thresholds in nats, e.g. 4,5,6."
        )

        def validate_thresholds(self, value: str) -> list[float]:
            try:
                values = [float(v) for v in value.split(",") if v.strip()]
            except ValueError as exc:
                raise serializers.ValidationError("thresholds must be numbers") from exc
            low, high = THRESHOLD_BOUNDS
            if not values or len(values) > MAX_THRESHOLDS:
                raise serializers.ValidationError(f"give 1 to {MAX_THRESHOLDS} thresholds")
            if any(not low <= v <= high for v in values):
                raise serializers.ValidationError(f"thresholds must be from {low:g} to {high:g}")
            return values

    class OutputSerializer(serializers.Serializer):
        points = PointSerializer(many=True)
        documents = serializers.IntegerField(help_text="Documents the curve was computed on.")
        assessed_documents = serializers.IntegerField()
        sampled = serializers.BooleanField(
            help_text="True when a large project was sampled evenly to bound the request."
        )

    @extend_schema(
        parameters=[OpenApiParameter("thresholds", str, required=True)],
        responses=OutputSerializer,
        summary="Share of the project's assessed text masked against the threshold",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=REVIEWER_ROLES,
            action="see the project's risk curve",
        )
        filters = parse(self.FilterSerializer, request.query_params)
        curve = risk_curve(project=project, thresholds=filters["thresholds"])
        return Response(self.OutputSerializer(curve).data)
