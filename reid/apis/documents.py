"""REST API of a document's re-identification panel: its person, the live rank, the greedy
suggestion and the rank each version leaves. Nothing here changes annotations."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions
from common.apis import current_user, parse
from knowledge.selectors import knowledge_base_for_project
from reid.apis.base import DEFAULT_TOP, TOP_BOUNDS, MasksField, ReidApi, k_field
from reid.models import PROFILE_ID_MAX
from reid.selectors import (
    DEFAULT_K,
    document_rank,
    document_reid_info,
    document_suggest,
    document_version_ranks,
)
from reid.services.targets import reid_target_clear, reid_target_set


class TargetSerializer(serializers.Serializer):
    profile_id = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    knowledge_base = serializers.IntegerField()
    # A field named "source" shadows Field.source as DRF declares it (popped by the metaclass).
    source = serializers.CharField()  # type: ignore[assignment]


class KnowledgeBaseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class ModelSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()


def pending_field() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.CharField(),
        help_text="Models of the ensemble not ranking yet: their profile embeddings for this "
        "knowledge base are still to be computed (by a job, never by a request).",
    )


class InfoSerializer(serializers.Serializer):
    target = TargetSerializer(allow_null=True)
    knowledge_bases = KnowledgeBaseSerializer(many=True)
    models = ModelSerializer(many=True)
    pending = pending_field()
    k = serializers.IntegerField()


class CandidateSerializer(serializers.Serializer):
    profile_id = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    score = serializers.FloatField()
    rank = serializers.IntegerField()
    model = serializers.CharField(help_text="The model that ranked the profile best.")
    is_target = serializers.BooleanField()
    links = serializers.ListField(child=serializers.CharField())


class RanksField(serializers.DictField):
    child = serializers.IntegerField()


class SuggestedSpanSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    text = serializers.CharField()
    reason = serializers.CharField(help_text='How its step moved the rank: "reid: rank 1 → 12".')


class VersionSerializer(serializers.Serializer):
    annotation_set = serializers.IntegerField()
    # A field named "label" shadows Field.label (a string) as DRF declares it.
    label = serializers.CharField()  # type: ignore[assignment]
    kind = serializers.ChoiceField(choices=["human", "machine"])
    rank = serializers.IntegerField()
    ranks = RanksField()
    safe = serializers.BooleanField()
    share_masked = serializers.FloatField()


class DocumentReidApi(ReidApi):
    @extend_schema(
        responses=InfoSerializer,
        summary="The document's person (a knowledge-base profile), the knowledge bases and models",
    )
    def get(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request), document_id=document_id
        )
        return Response(InfoSerializer(document_reid_info(document=document)).data)


class DocumentReidTargetApi(ReidApi):
    class InputSerializer(serializers.Serializer):
        profile_id = serializers.CharField(max_length=PROFILE_ID_MAX, trim_whitespace=True)
        knowledge_base = serializers.IntegerField(min_value=1)

    @extend_schema(
        request=InputSerializer,
        responses=InfoSerializer,
        summary="Choose the document's person: a profile of a ready knowledge base",
    )
    def put(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(
            user=user, document_id=document_id, action="choose the document's person"
        )
        data = parse(self.InputSerializer, request.data)
        knowledge_base = knowledge_base_for_project(
            project=document.project, knowledge_base_id=data["knowledge_base"]
        )
        if knowledge_base is None:
            raise serializers.ValidationError(
                {"knowledge_base": "no such knowledge base in this project"}
            )
        reid_target_set(
            document=document,
            knowledge_base=knowledge_base,
            profile_id=data["profile_id"],
            user=user,
        )
        return Response(InfoSerializer(document_reid_info(document=document)).data)

    @extend_schema(
        request=None,
        responses=InfoSerializer,
        summary="Forget the chosen person (an imported target applies again)",
    )
    def delete(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request),
            document_id=document_id,
            action="choose the document's person",
        )
        reid_target_clear(document=document)
        return Response(InfoSerializer(document_reid_info(document=document)).data)


class DocumentReidRankApi(ReidApi):
    class InputSerializer(serializers.Serializer):
        masks = MasksField()
        k = k_field(default=DEFAULT_K)
        top = serializers.IntegerField(
            min_value=TOP_BOUNDS[0], max_value=TOP_BOUNDS[1], default=DEFAULT_TOP
        )

    class OutputSerializer(serializers.Serializer):
        rank = serializers.IntegerField(help_text="The best rank over the models (1 = found).")
        ranks = RanksField()
        n_candidates = serializers.IntegerField()
        reidentified = serializers.BooleanField()
        safe = serializers.BooleanField(help_text="Every model ranks the person below k.")
        k = serializers.IntegerField()
        share_masked = serializers.FloatField()
        top = CandidateSerializer(many=True)
        target = serializers.DictField(child=serializers.CharField(allow_blank=True))
        pending = pending_field()
        elapsed_ms = serializers.FloatField()

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        summary="The person's rank among all profiles under the given masks (nothing is stored)",
    )
    def post(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request), document_id=document_id
        )
        data = parse(self.InputSerializer, request.data)
        body = document_rank(document=document, masks=data["masks"], k=data["k"], top=data["top"])
        return Response(self.OutputSerializer(body).data)


class DocumentReidSuggestApi(ReidApi):
    class InputSerializer(serializers.Serializer):
        masks = MasksField()
        k = k_field(default=DEFAULT_K)

    class OutputSerializer(serializers.Serializer):
        spans = SuggestedSpanSerializer(many=True)
        ranks_before = RanksField()
        ranks_after = RanksField()
        reached = serializers.BooleanField(help_text="Every model ranks the person below k.")
        share_masked = serializers.FloatField()
        pending = pending_field()

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        summary="The masks the greedy search would add until the person ranks below k",
    )
    def post(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request), document_id=document_id
        )
        data = parse(self.InputSerializer, request.data)
        body = document_suggest(document=document, masks=data["masks"], k=data["k"])
        return Response(self.OutputSerializer(body).data)


class DocumentReidVersionsApi(ReidApi):
    class FilterSerializer(serializers.Serializer):
        k = k_field(default=DEFAULT_K)

    class OutputSerializer(serializers.Serializer):
        versions = VersionSerializer(many=True)
        k = serializers.IntegerField()

    @extend_schema(
        parameters=[OpenApiParameter("k", int, required=False)],
        responses=OutputSerializer,
        summary="The rank each annotator's and machine's masks leave",
    )
    def get(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(user=user, document_id=document_id)
        filters = parse(self.FilterSerializer, request.query_params)
        body = document_version_ranks(document=document, user=user, k=filters["k"])
        return Response(self.OutputSerializer(body).data)
