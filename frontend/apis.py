"""API endpoints the browser pages need beyond ``/api/`` (mounted under ``/ui/api/``).

Same conventions as ``annotation.apis``: one view per operation, nested serializers,
objects resolved through ``annotation.permissions`` (404 outside the user's projects,
403 for a role that may not act).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import agreement_selectors, permissions, review_services, selectors
from annotation.apis import BaseApi, current_user, parse, set_detail
from annotation.models import SetKind, Span
from annotation.permissions import REVIEWER_ROLES
from common.errors import DomainError

_SPAN_FIELDS = (
    "id",
    "annotation_set_id",
    "start",
    "end",
    "entity_type",
    "identifier_type",
    "confidential_status",
    "entity_id",
    "mention_id",
    "confidence",
    "note",
    "attrs",
    "version",
)


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
        role = selectors.project_role(user=user, project=document.project_id)
        sets = list(selectors.annotation_sets_for_user(user=user, document=document))
        spans: dict[int, list[dict[str, Any]]] = {s.pk: [] for s in sets}
        rows = Span.objects.filter(annotation_set_id__in=spans).order_by("start", "end", "id")
        for row in rows.values(*_SPAN_FIELDS):
            spans[row.pop("annotation_set_id")].append(row)
        out_sets = []
        for annotation_set in sets:
            out_sets.append(
                {
                    "id": annotation_set.pk,
                    "kind": annotation_set.kind,
                    "source": annotation_set.source,
                    "source_name": annotation_set.source_name,
                    "source_version": annotation_set.source_version,
                    "name": agreement_selectors.set_name(annotation_set),
                    "annotator": (
                        annotation_set.annotator.get_username()
                        if annotation_set.annotator
                        else None
                    ),
                    "status": annotation_set.status,
                    "editable": selectors.annotation_set_editable_in_role(
                        user=user, annotation_set=annotation_set, role=role
                    ),
                    "mine": annotation_set.kind == SetKind.HUMAN
                    and annotation_set.annotator_id == user.pk,
                    "published_at": annotation_set.published_at,
                    "rejected_suggestions": (annotation_set.parameters or {}).get(
                        "rejected_suggestions", []
                    ),
                    "spans": [self.SpanOutputSerializer(s).data for s in spans[annotation_set.pk]],
                }
            )
        data = {
            "id": document.pk,
            "external_id": document.external_id,
            "project": document.project_id,
            "project_name": document.project.name,
            "role": role or "",
            "text": document.text,
            "target_person": document.target_person,
            "status": document.status,
            "sets": [self.SetOutputSerializer(s).data for s in out_sets],
        }
        return Response(self.OutputSerializer(data).data)


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
        rejected = review_services.suggestions_set_rejected(
            annotation_set=annotation_set, user=user, **data
        )
        return Response(self.OutputSerializer({"rejected_suggestions": rejected}).data)


class DocumentAgreementApi(BaseApi):
    @extend_schema(summary="Inter-annotator and machine-vs-gold agreement of a document")
    def get(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request),
            document_id=document_id,
            roles=REVIEWER_ROLES,
            action="see agreement",
        )
        summary = agreement_selectors.document_agreement(document=document)
        summary["disagreements"] = [
            {"start": d["start"], "end": d["end"]}
            for d in agreement_selectors.document_disagreements(document=document)
        ]
        return Response(summary)


class ProjectAgreementApi(BaseApi):
    @extend_schema(summary="Inter-annotator and machine-vs-gold agreement of a project")
    def get(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=REVIEWER_ROLES,
            action="see agreement",
        )
        return Response(agreement_selectors.project_agreement(project=project))


class GoldAdoptApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        span_ids = serializers.ListField(child=serializers.IntegerField(), default=list)
        start = serializers.IntegerField(min_value=0, required=False)
        end = serializers.IntegerField(min_value=1, required=False)

    @extend_schema(
        request=InputSerializer,
        summary="Adopt one set's version of a region into the gold set (reviewers)",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(
            user=user, document_id=document_id, roles=REVIEWER_ROLES, action="adjudicate"
        )
        data = parse(self.InputSerializer, request.data)
        spans = list(
            Span.objects.select_related("annotation_set").filter(
                pk__in=data["span_ids"], annotation_set__document=document
            )
        )
        if len(spans) != len(set(data["span_ids"])):
            raise DomainError("some spans are not in this document")
        review_services.gold_adopt_spans(
            document=document, spans=spans, user=user, start=data.get("start"), end=data.get("end")
        )
        gold = document.annotation_sets.get(kind=SetKind.GOLD)
        return Response(set_detail(user, gold))


class GoldCompleteApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        publish = serializers.BooleanField(default=True)

    @extend_schema(
        request=InputSerializer,
        summary="Copy the unanimous annotation into gold (and publish) in one action",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(
            user=user, document_id=document_id, roles=REVIEWER_ROLES, action="adjudicate"
        )
        data = parse(self.InputSerializer, request.data)
        gold = review_services.gold_complete_unanimous(
            document=document, user=user, publish=data["publish"]
        )
        return Response(set_detail(user, gold), status=status.HTTP_200_OK)
