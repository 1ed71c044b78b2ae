"""Documents: listing, reading, metadata changes, assignment, the annotator's queue,
and the released (masked) text of a document."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.models import DocumentStatus, IdentifierType, SemanticType, Split
from annotation.permissions import ADMIN_ROLES
from common.apis import BaseApi, BaseListApi, current_user, parse
from sanitizer.formats.release import REPLACEMENT_STYLES

# Bound on one release request: a long judgment holds a few thousand spans.
MAX_RELEASE_SPANS = 50_000


class DocumentListOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    project = serializers.IntegerField(source="project_id")
    external_id = serializers.CharField()
    split = serializers.ChoiceField(choices=Split.choices)
    status = serializers.ChoiceField(choices=DocumentStatus.choices)
    target_person = serializers.CharField()
    position = serializers.IntegerField()


class DocumentListApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=DocumentStatus.choices, required=False)
        split = serializers.ChoiceField(choices=Split.choices, required=False)

    @extend_schema(parameters=[FilterSerializer], responses=DocumentListOutputSerializer(many=True))
    def get(self, request: Request, project_id: int) -> Response:
        user = current_user(request)
        project = permissions.project_for_user(user=user, project_id=project_id)
        filters = parse(self.FilterSerializer, request.query_params)
        documents = selectors.document_list(user=user, project=project, **filters)
        return self.paginated(request, documents, DocumentListOutputSerializer)


class DocumentDetailApi(BaseApi):
    class OutputSerializer(DocumentListOutputSerializer):
        text = serializers.CharField()
        meta = serializers.JSONField()
        task = serializers.CharField()
        created_at = serializers.DateTimeField()
        updated_at = serializers.DateTimeField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request), document_id=document_id
        )
        return Response(self.OutputSerializer(document).data)


class DocumentUpdateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        meta = serializers.DictField(required=False)
        split = serializers.ChoiceField(choices=Split.choices, required=False)
        target_person = serializers.CharField(max_length=500, required=False, allow_blank=True)

    @extend_schema(
        request=InputSerializer,
        responses=DocumentDetailApi.OutputSerializer,
        summary="Change a document's metadata (its text is immutable here)",
    )
    def patch(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request),
            document_id=document_id,
            roles=ADMIN_ROLES,
            action="change documents",
        )
        data = parse(self.InputSerializer, request.data)
        document = services.document_update(document=document, **data)
        return Response(DocumentDetailApi.OutputSerializer(document).data)


class ReleaseSpanInputSerializer(serializers.Serializer):
    start = serializers.IntegerField(min_value=0, help_text="Code point offset.")
    end = serializers.IntegerField(min_value=1)
    entity_type = serializers.ChoiceField(choices=SemanticType.choices)
    identifier_type = serializers.ChoiceField(choices=IdentifierType.choices)
    entity_id = serializers.CharField(
        max_length=255,
        required=False,
        default="",
        allow_blank=True,
        help_text="Co-reference link: mentions with one entity id share a numbered placeholder.",
    )


class ReleasePlaceholderOutputSerializer(serializers.Serializer):
    start = serializers.IntegerField(help_text="Code point offset in the released text.")
    end = serializers.IntegerField()
    source_start = serializers.IntegerField(help_text="Code point offset in the document.")
    source_end = serializers.IntegerField()
    entity_type = serializers.CharField()
    number = serializers.IntegerField(allow_null=True, help_text="numbered style only.")


class DocumentReleaseApi(BaseApi):
    """The editor's masked preview comes from here, so the server's release function
    is the only implementation of the released text."""

    class InputSerializer(serializers.Serializer):
        # Declared fields leave the class at run time; only the stubs see a clash.
        style = serializers.ChoiceField(  # type: ignore[assignment]
            choices=list(REPLACEMENT_STYLES), default="type"
        )
        spans = serializers.ListField(
            child=ReleaseSpanInputSerializer(), max_length=MAX_RELEASE_SPANS, allow_empty=True
        )

    class OutputSerializer(serializers.Serializer):
        text = serializers.CharField(allow_blank=True, trim_whitespace=False)
        style = serializers.CharField()  # type: ignore[assignment]
        placeholders = ReleasePlaceholderOutputSerializer(many=True)

    @extend_schema(
        request=InputSerializer,
        responses=OutputSerializer,
        summary="The document's text as released with the given spans (DIRECT/QUASI masked)",
    )
    def post(self, request: Request, document_id: int) -> Response:
        document = permissions.document_for_user(
            user=current_user(request), document_id=document_id
        )
        data = parse(self.InputSerializer, request.data)
        released = selectors.document_release(
            document=document,
            spans=(
                (s["start"], s["end"], s["entity_type"], s["identifier_type"], s["entity_id"])
                for s in data["spans"]
            ),
            style=data["style"],
        )
        output = {
            "text": released.text,
            "style": data["style"],
            "placeholders": released.placeholders,
        }
        return Response(self.OutputSerializer(output).data)


class MyQueueApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        project = serializers.IntegerField(required=False)

    class OutputSerializer(DocumentListOutputSerializer):
        project_name = serializers.CharField(source="project.name")
        has_own_set = serializers.BooleanField()

    @extend_schema(
        parameters=[FilterSerializer],
        responses=OutputSerializer(many=True),
        summary="Documents assigned to the logged-in user",
    )
    def get(self, request: Request) -> Response:
        user = current_user(request)
        filters = parse(self.FilterSerializer, request.query_params)
        project = permissions.project_filter_for_user(user=user, project_id=filters.get("project"))
        queue = selectors.my_queue(user=user, project=project)
        return self.paginated(request, queue, self.OutputSerializer)


class AssignmentCreateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        document_ids = serializers.ListField(child=serializers.IntegerField(), min_length=1)
        annotator_ids = serializers.ListField(child=serializers.IntegerField(), min_length=1)
        overlap = serializers.IntegerField(
            min_value=1, default=1, help_text="Annotators per document."
        )

    class OutputSerializer(serializers.Serializer):
        document = serializers.IntegerField(source="document_id")
        user = serializers.IntegerField(source="user_id")

    @extend_schema(
        request=InputSerializer,
        responses={201: OutputSerializer(many=True)},
        summary="Assign documents to annotators round-robin, `overlap` annotators per document",
    )
    def post(self, request: Request, project_id: int) -> Response:
        user = current_user(request)
        project = permissions.project_for_user(
            user=user, project_id=project_id, roles=ADMIN_ROLES, action="assign documents"
        )
        data = parse(self.InputSerializer, request.data)
        assignments = services.assignments_round_robin(project=project, created_by=user, **data)
        return Response(
            self.OutputSerializer(assignments, many=True).data, status=status.HTTP_201_CREATED
        )
