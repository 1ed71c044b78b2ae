"""Review: the gold set of a document, adjudicating disputed regions into it (one
region, or all of one set's version at once), the regions gold has not decided yet,
completing a unanimous document in one action, and publishing the gold set."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.apis.annotation_sets import AnnotationSetDetailApi, set_detail
from annotation.models import Document
from annotation.permissions import REVIEWER_ROLES
from common.apis import BaseApi, current_user, parse


def _document_to_adjudicate(request: Request, document_id: int, action: str) -> Document:
    return permissions.document_for_user(
        user=current_user(request), document_id=document_id, roles=REVIEWER_ROLES, action=action
    )


class GoldSetApi(BaseApi):
    @extend_schema(
        request=None,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="The document's gold set, created on first use (reviewers and admins)",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = _document_to_adjudicate(request, document_id, "adjudicate")
        gold = services.gold_set_for_document(document=document, user=user)
        return Response(set_detail(user, gold))


class GoldPublishApi(BaseApi):
    """Publishing while regions are undecided, or while annotators still work with marks
    not submitted, answers 400 with the number of regions (``unresolved``, of ``total``)
    and those annotators (``in_progress``) unless the request says ``force: true``: the
    review page shows them and asks the reviewer to confirm first."""

    class InputSerializer(serializers.Serializer):
        force = serializers.BooleanField(default=False)

    @extend_schema(
        request=InputSerializer,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="Publish the gold set: annotators may then see every set of the document",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = _document_to_adjudicate(request, document_id, "publish gold sets")
        data = parse(self.InputSerializer, request.data or {})
        try:
            gold = services.gold_publish(document=document, user=user, force=data["force"])
        except services.UnresolvedRegionsError as exc:
            body = {
                "detail": str(exc),
                "unresolved": exc.unresolved,
                "total": exc.total,
                "in_progress": exc.in_progress,
            }
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        return Response(set_detail(user, gold))


class _RegionSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()


class GoldRegionsApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        total = serializers.IntegerField(help_text="Regions of the submitted annotator sets")
        unresolved = _RegionSerializer(many=True, help_text="Regions gold has not decided")

    @extend_schema(
        responses=OutputSerializer,
        summary="The submitted annotators' regions that gold has not decided yet",
    )
    def get(self, request: Request, document_id: int) -> Response:
        document = _document_to_adjudicate(request, document_id, "adjudicate")
        regions = selectors.gold_unresolved_regions(document=document)
        unresolved = [{"start": start, "end": end} for start, end in regions["unresolved"]]
        return Response(
            self.OutputSerializer({"total": regions["total"], "unresolved": unresolved}).data
        )


class GoldAdoptSetApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        annotation_set_id = serializers.IntegerField()

    @extend_schema(
        request=InputSerializer,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="Adopt one set's version of every region into gold in one action",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = _document_to_adjudicate(request, document_id, "adjudicate")
        data = parse(self.InputSerializer, request.data)
        source = permissions.annotation_set_for_user(
            user=user, annotation_set_id=data["annotation_set_id"]
        )
        gold = services.gold_adopt_set(document=document, source=source, user=user)
        return Response(set_detail(user, gold))


class GoldAdoptApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        span_ids = serializers.ListField(child=serializers.IntegerField(), default=list)
        start = serializers.IntegerField(min_value=0, required=False)
        end = serializers.IntegerField(min_value=1, required=False)

    @extend_schema(
        request=InputSerializer,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="Adopt one set's version of a region into the gold set (reviewers)",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = _document_to_adjudicate(request, document_id, "adjudicate")
        data = parse(self.InputSerializer, request.data)
        spans = selectors.spans_of_document(document=document, span_ids=data["span_ids"])
        services.gold_adopt_spans(
            document=document, spans=spans, user=user, start=data.get("start"), end=data.get("end")
        )
        return Response(set_detail(user, selectors.gold_set(document=document)))


class GoldCompleteApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        publish = serializers.BooleanField(default=True)

    @extend_schema(
        request=InputSerializer,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="Copy the unanimous annotation into gold (and publish) in one action",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = _document_to_adjudicate(request, document_id, "adjudicate")
        data = parse(self.InputSerializer, request.data)
        gold = services.gold_complete_unanimous(
            document=document, user=user, publish=data["publish"]
        )
        return Response(set_detail(user, gold))
