"""Annotation sets: listing, reading, the annotator's own set, submission, entity-wide
decisions, rejected suggestions, and the editor's workspace (every visible set of a
document with its spans in one request)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.models import (
    AnnotationSet,
    ConfidentialStatus,
    IdentifierType,
    SemanticType,
    SetKind,
    SetSource,
    SetStatus,
)
from common.apis import BaseApi, BaseListApi, current_user, parse


class AnnotationSetOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    document = serializers.IntegerField(source="document_id")
    kind = serializers.ChoiceField(choices=SetKind.choices)
    source = serializers.ChoiceField(choices=SetSource.choices)  # type: ignore[assignment]
    annotator = serializers.CharField(source="annotator.username", allow_null=True, default=None)
    source_name = serializers.CharField()
    source_version = serializers.CharField()
    status = serializers.ChoiceField(choices=SetStatus.choices)
    quality_checked = serializers.BooleanField()
    published_at = serializers.DateTimeField(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True)
    reviewed_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class SpanOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    annotation_set = serializers.IntegerField(source="annotation_set_id")
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    text = serializers.CharField()
    entity_type = serializers.ChoiceField(choices=SemanticType.choices)
    identifier_type = serializers.ChoiceField(choices=IdentifierType.choices)
    confidential_status = serializers.ChoiceField(choices=ConfidentialStatus.choices)
    entity_id = serializers.CharField()
    mention_id = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)
    note = serializers.CharField()
    attrs = serializers.JSONField()
    version = serializers.IntegerField()
    updated_at = serializers.DateTimeField()


class AnnotationSetListApi(BaseListApi):
    class OutputSerializer(AnnotationSetOutputSerializer):
        span_count = serializers.IntegerField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(user=user, document_id=document_id)
        sets = selectors.annotation_sets_for_user(user=user, document=document)
        return self.paginated(request, sets, self.OutputSerializer)


class AnnotationSetDetailApi(BaseApi):
    class OutputSerializer(AnnotationSetOutputSerializer):
        editable = serializers.BooleanField()
        spans = SpanOutputSerializer(many=True)

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, annotation_set_id: int) -> Response:
        user = current_user(request)
        annotation_set = permissions.annotation_set_for_user(
            user=user, annotation_set_id=annotation_set_id
        )
        return Response(set_detail(user, annotation_set))


def set_detail(user: Any, annotation_set: AnnotationSet) -> Any:
    """A set as :class:`AnnotationSetDetailApi` renders it, for the views that answer
    with the set they changed."""
    annotation_set.editable = selectors.annotation_set_editable(  # type: ignore[attr-defined]
        user=user, annotation_set=annotation_set
    )
    return AnnotationSetDetailApi.OutputSerializer(annotation_set).data


class MyAnnotationSetApi(BaseApi):
    @extend_schema(
        request=None,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="The logged-in user's own set for the document, created on first use "
        "(reviewers and admins: only on documents assigned to them)",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(user=user, document_id=document_id)
        if not selectors.annotator_set_allowed(user=user, document=document):
            raise PermissionDenied(
                "reviewers and admins annotate only documents assigned to them; "
                "use the review page to adjudicate"
            )
        annotation_set = services.annotation_set_for_annotator(document=document, user=user)
        return Response(set_detail(user, annotation_set))


class AnnotationSetSubmitApi(BaseApi):
    @extend_schema(request=None, responses=AnnotationSetDetailApi.OutputSerializer)
    def post(self, request: Request, annotation_set_id: int) -> Response:
        user = current_user(request)
        annotation_set = permissions.annotation_set_for_user(
            user=user, annotation_set_id=annotation_set_id
        )
        owner = annotation_set.annotator
        if owner is None or owner.pk != user.pk:
            raise PermissionDenied("only the annotator of a set may submit it")
        annotation_set = services.annotation_set_submit(annotation_set=annotation_set, user=user)
        return Response(set_detail(user, annotation_set))


class EntityDecisionApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        entity_id = serializers.CharField(max_length=255)
        identifier_type = serializers.ChoiceField(choices=IdentifierType.choices)

    class OutputSerializer(serializers.Serializer):
        updated = serializers.IntegerField()

    @extend_schema(
        request=InputSerializer,
        responses=OutputSerializer,
        summary="Set the masking decision for every mention of an entity in the set",
    )
    def post(self, request: Request, annotation_set_id: int) -> Response:
        user = current_user(request)
        annotation_set = permissions.editable_annotation_set_for_user(
            user=user, annotation_set_id=annotation_set_id
        )
        data = parse(self.InputSerializer, request.data)
        updated = services.spans_set_decision_for_entity(
            annotation_set=annotation_set, user=user, **data
        )
        return Response(self.OutputSerializer({"updated": updated}).data)


class SuggestionRejectApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        span_ids = serializers.ListField(child=serializers.IntegerField(), min_length=1)
        rejected = serializers.BooleanField(default=True)

    class OutputSerializer(serializers.Serializer):
        rejected_suggestions = serializers.ListField(child=serializers.IntegerField())

    @extend_schema(
        request=InputSerializer,
        responses=OutputSerializer,
        summary="Mark machine suggestions as rejected (or not) in your own set",
    )
    def post(self, request: Request, annotation_set_id: int) -> Response:
        user = current_user(request)
        annotation_set = permissions.editable_annotation_set_for_user(
            user=user, annotation_set_id=annotation_set_id
        )
        data = parse(self.InputSerializer, request.data)
        rejected = services.suggestions_set_rejected(
            annotation_set=annotation_set, user=user, **data
        )
        return Response(self.OutputSerializer({"rejected_suggestions": rejected}).data)


class DocumentWorkspaceApi(BaseApi):
    """Everything the editor needs in one request: long documents carry hundreds of
    spans per set, and one round trip per set would delay the first paint."""

    class SpanOutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        start = serializers.IntegerField()
        end = serializers.IntegerField()
        entity_type = serializers.CharField()
        identifier_type = serializers.CharField()
        confidential_status = serializers.CharField()
        entity_id = serializers.CharField()
        mention_id = serializers.CharField()
        confidence = serializers.FloatField(allow_null=True)
        note = serializers.CharField()
        attrs = serializers.JSONField()
        version = serializers.IntegerField()

    class SetOutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        kind = serializers.CharField()
        # Declared fields leave the class at run time; only the stubs see a clash.
        source = serializers.CharField()  # type: ignore[assignment]
        source_name = serializers.CharField()
        source_version = serializers.CharField()
        name = serializers.CharField()
        annotator = serializers.CharField(allow_null=True)
        status = serializers.CharField()
        editable = serializers.BooleanField()
        mine = serializers.BooleanField()
        published_at = serializers.DateTimeField(allow_null=True)
        rejected_suggestions = serializers.ListField(child=serializers.IntegerField())
        spans = serializers.ListField(child=serializers.DictField())

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        external_id = serializers.CharField()
        project = serializers.IntegerField()
        project_name = serializers.CharField()
        role = serializers.CharField()
        text = serializers.CharField()
        target_person = serializers.CharField()
        status = serializers.CharField()
        sets = serializers.ListField(child=serializers.DictField())

    @extend_schema(responses=OutputSerializer, summary="Document, visible sets and their spans")
    def get(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(user=user, document_id=document_id)
        workspace = selectors.document_workspace(user=user, document=document)
        # The span rows are plain dicts holding exactly SpanOutputSerializer's fields
        # (the selector reads them with .values()): running a serializer over each of
        # them took 80% of the answer's time (10 versions of a long document: 7,000
        # spans, 0.4 s), so they are passed through as they are.
        workspace["sets"] = [
            {**self.SetOutputSerializer({**s, "spans": []}).data, "spans": s["spans"]}
            for s in workspace["sets"]
        ]
        return Response(self.OutputSerializer(workspace).data)
