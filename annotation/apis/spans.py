"""Spans: reading, creating, changing (optimistic locking: a stale version answers 409)
and deleting, and the audit trail of sets and spans."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.apis.annotation_sets import SpanOutputSerializer
from annotation.models import ConfidentialStatus, IdentifierType, SemanticType, SpanAction
from common.apis import BaseApi, BaseListApi, current_user, parse


class SpanDetailApi(BaseApi):
    @extend_schema(responses=SpanOutputSerializer)
    def get(self, request: Request, span_id: int) -> Response:
        span = permissions.span_for_user(user=current_user(request), span_id=span_id)
        return Response(SpanOutputSerializer(span).data)


class SpanCreateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        start = serializers.IntegerField(min_value=0)
        end = serializers.IntegerField(min_value=1)
        entity_type = serializers.ChoiceField(choices=SemanticType.choices)
        identifier_type = serializers.ChoiceField(choices=IdentifierType.choices, default="QUASI")
        confidential_status = serializers.ChoiceField(
            choices=ConfidentialStatus.choices, default="NOT_CONFIDENTIAL"
        )
        entity_id = serializers.CharField(max_length=255, required=False, allow_blank=True)
        note = serializers.CharField(required=False, allow_blank=True)
        confidence = serializers.FloatField(
            min_value=0, max_value=1, required=False, allow_null=True
        )
        attrs = serializers.DictField(required=False)

    @extend_schema(request=InputSerializer, responses={201: SpanOutputSerializer})
    def post(self, request: Request, annotation_set_id: int) -> Response:
        user = current_user(request)
        annotation_set = permissions.editable_annotation_set_for_user(
            user=user, annotation_set_id=annotation_set_id
        )
        data = parse(self.InputSerializer, request.data)
        span = services.span_create(annotation_set=annotation_set, user=user, **data)
        return Response(SpanOutputSerializer(span).data, status=status.HTTP_201_CREATED)


class SpanSnapshotOutputSerializer(serializers.Serializer):
    """``services.span_snapshot``: the span as stored now."""

    id = serializers.IntegerField()
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    text = serializers.CharField()
    entity_type = serializers.CharField()
    identifier_type = serializers.CharField()
    confidential_status = serializers.CharField()
    entity_id = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)
    note = serializers.CharField()
    version = serializers.IntegerField()


class StaleOutputSerializer(serializers.Serializer):
    detail = serializers.CharField()
    current = SpanSnapshotOutputSerializer(allow_null=True)


class SpanUpdateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        version = serializers.IntegerField(
            min_value=1, help_text="The version you read; a newer one answers 409."
        )
        start = serializers.IntegerField(min_value=0, required=False)
        end = serializers.IntegerField(min_value=1, required=False)
        entity_type = serializers.ChoiceField(choices=SemanticType.choices, required=False)
        identifier_type = serializers.ChoiceField(choices=IdentifierType.choices, required=False)
        confidential_status = serializers.ChoiceField(
            choices=ConfidentialStatus.choices, required=False
        )
        entity_id = serializers.CharField(max_length=255, required=False, allow_blank=True)
        note = serializers.CharField(required=False, allow_blank=True)
        confidence = serializers.FloatField(
            min_value=0, max_value=1, required=False, allow_null=True
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if len(attrs) < 2:
                raise serializers.ValidationError("nothing to change")
            return attrs

    @extend_schema(
        request=InputSerializer,
        responses={200: SpanOutputSerializer, 409: StaleOutputSerializer},
        summary="Change a span, if nobody changed it since `version` was read",
    )
    def patch(self, request: Request, span_id: int) -> Response:
        user = current_user(request)
        span = permissions.span_for_user(user=user, span_id=span_id)
        permissions.ensure_editable(user=user, annotation_set=span.annotation_set)
        data = parse(self.InputSerializer, request.data)
        version = data.pop("version")
        span = services.span_update(span=span, user=user, expected_version=version, **data)
        return Response(SpanOutputSerializer(span).data)


class SpanDeleteApi(BaseApi):
    class FilterSerializer(serializers.Serializer):
        version = serializers.IntegerField(min_value=1, help_text="The version you read.")

    @extend_schema(
        parameters=[FilterSerializer],
        responses={204: None, 409: StaleOutputSerializer},
    )
    def delete(self, request: Request, span_id: int) -> Response:
        user = current_user(request)
        span = permissions.span_for_user(user=user, span_id=span_id)
        permissions.ensure_editable(user=user, annotation_set=span.annotation_set)
        data = parse(self.FilterSerializer, request.query_params)
        services.span_delete(span=span, user=user, expected_version=data["version"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class SpanEventOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    span_key = serializers.IntegerField()
    span = serializers.IntegerField(source="span_id", allow_null=True)
    annotation_set = serializers.IntegerField(source="annotation_set_id")
    action = serializers.ChoiceField(choices=SpanAction.choices)
    user = serializers.CharField(source="user.username", allow_null=True, default=None)
    at = serializers.DateTimeField()
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)


class AnnotationSetEventListApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        span = serializers.IntegerField(required=False, help_text="A span id (deleted or not).")

    @extend_schema(
        parameters=[FilterSerializer],
        responses=SpanEventOutputSerializer(many=True),
        summary="Audit trail of the set's spans",
    )
    def get(self, request: Request, annotation_set_id: int) -> Response:
        annotation_set = permissions.annotation_set_for_user(
            user=current_user(request), annotation_set_id=annotation_set_id
        )
        filters = parse(self.FilterSerializer, request.query_params)
        events = selectors.span_events(annotation_set=annotation_set, span_key=filters.get("span"))
        return self.paginated(request, events, SpanEventOutputSerializer)


class SpanEventListApi(BaseListApi):
    @extend_schema(
        responses=SpanEventOutputSerializer(many=True),
        summary="Audit trail of one span, also after it was deleted",
    )
    def get(self, request: Request, span_id: int) -> Response:
        annotation_set = permissions.span_history_set_for_user(
            user=current_user(request), span_key=span_id
        )
        events = selectors.span_events(annotation_set=annotation_set, span_key=span_id)
        return self.paginated(request, events, SpanEventOutputSerializer)
