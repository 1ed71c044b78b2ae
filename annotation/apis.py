"""REST API of the annotation app: one view per operation.

Views parse input with a nested ``InputSerializer`` (or ``FilterSerializer`` for
query strings), resolve objects through ``annotation.permissions`` (404 outside
the user's projects, 403 for a role that may not act), call a service or selector
and render with a nested ``OutputSerializer``.

Project creation is open to every authenticated user, who becomes the project's
admin: projects are isolated from each other, so a new one grants no access to
anything that exists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.models import (
    ConfidentialStatus,
    DocumentStatus,
    IdentifierType,
    Role,
    SemanticType,
    SetKind,
    SetSource,
    SetStatus,
    SpanAction,
    Split,
)
from annotation.permissions import ADMIN_ROLES, REVIEWER_ROLES
from common.apis import BaseApi, BaseListApi, current_user, parse
from sanitizer.formats.tab import REPLACEMENT_STYLES


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


# --- me, projects and members --------------------------------------------------------------


class ProjectRoleOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="project.id")
    name = serializers.CharField(source="project.name")
    role = serializers.ChoiceField(choices=Role.choices)


class MeApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        email = serializers.EmailField()
        is_staff = serializers.BooleanField()
        is_superuser = serializers.BooleanField()
        projects = ProjectRoleOutputSerializer(many=True)

    @extend_schema(responses=OutputSerializer, summary="The logged-in user and their project roles")
    def get(self, request: Request) -> Response:
        user = current_user(request)
        data = {
            "id": user.pk,
            "username": user.get_username(),
            "email": user.email,
            "is_staff": user.is_staff,
            "is_superuser": user.is_superuser,
            "projects": selectors.user_memberships(user=user),
        }
        return Response(self.OutputSerializer(data).data)


class ProjectDetailApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        name = serializers.CharField()
        description = serializers.CharField()
        guidelines = serializers.CharField()
        k_anonymity = serializers.IntegerField()
        risk_threshold = serializers.FloatField()
        privacy_settings = serializers.JSONField()
        created_at = serializers.DateTimeField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(user=current_user(request), project_id=project_id)
        return Response(self.OutputSerializer(project).data)


class ProjectListApi(BaseListApi):
    @extend_schema(responses=ProjectDetailApi.OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        projects = selectors.projects_for_user(user=current_user(request)).order_by("name", "id")
        return self.paginated(request, projects, ProjectDetailApi.OutputSerializer)


class ProjectCreateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        description = serializers.CharField(required=False, allow_blank=True)
        guidelines = serializers.CharField(required=False, allow_blank=True)
        k_anonymity = serializers.IntegerField(required=False, min_value=1)
        risk_threshold = serializers.FloatField(required=False, min_value=0, max_value=1)
        privacy_settings = serializers.DictField(required=False)

    @extend_schema(
        request=InputSerializer,
        responses={201: ProjectDetailApi.OutputSerializer},
        summary="Create a project; the creator becomes its admin",
    )
    def post(self, request: Request) -> Response:
        data = parse(self.InputSerializer, request.data)
        project = services.project_create(created_by=current_user(request), **data)
        return Response(
            ProjectDetailApi.OutputSerializer(project).data, status=status.HTTP_201_CREATED
        )


class ProjectUpdateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200, required=False)
        description = serializers.CharField(required=False, allow_blank=True)
        guidelines = serializers.CharField(required=False, allow_blank=True)
        k_anonymity = serializers.IntegerField(required=False, min_value=1)
        risk_threshold = serializers.FloatField(required=False, min_value=0, max_value=1)
        privacy_settings = serializers.DictField(required=False)

    @extend_schema(request=InputSerializer, responses=ProjectDetailApi.OutputSerializer)
    def patch(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=ADMIN_ROLES,
            action="change the project",
        )
        data = parse(self.InputSerializer, request.data)
        project = services.project_update(project=project, **data)
        return Response(ProjectDetailApi.OutputSerializer(project).data)


class MemberOutputSerializer(serializers.Serializer):
    user = UserOutputSerializer()
    role = serializers.ChoiceField(choices=Role.choices)
    created_at = serializers.DateTimeField()


class MemberListApi(BaseListApi):
    @extend_schema(responses=MemberOutputSerializer(many=True))
    def get(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(user=current_user(request), project_id=project_id)
        return self.paginated(
            request, selectors.project_memberships(project=project), MemberOutputSerializer
        )


class MemberAddApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField()
        role = serializers.ChoiceField(choices=Role.choices, default=Role.ANNOTATOR)

    @extend_schema(
        request=InputSerializer,
        responses={201: MemberOutputSerializer},
        summary="Add a user to the project, or change the role of a member",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=ADMIN_ROLES,
            action="manage members",
        )
        data = parse(self.InputSerializer, request.data)
        user = get_user_model().objects.filter(username=data["username"]).first()
        if user is None:
            raise serializers.ValidationError({"username": "no such user"})
        membership = services.membership_set(project=project, user=user, role=data["role"])
        return Response(MemberOutputSerializer(membership).data, status=status.HTTP_201_CREATED)


def _membership_or_404(project: Any, user_id: int) -> Any:
    membership = selectors.project_memberships(project=project).filter(user_id=user_id).first()
    if membership is None:
        raise NotFound("no such member")
    return membership


class MemberUpdateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        role = serializers.ChoiceField(choices=Role.choices)

    @extend_schema(request=InputSerializer, responses=MemberOutputSerializer)
    def patch(self, request: Request, project_id: int, user_id: int) -> Response:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=ADMIN_ROLES,
            action="manage members",
        )
        membership = _membership_or_404(project, user_id)
        data = parse(self.InputSerializer, request.data)
        membership = services.membership_set(
            project=project, user=membership.user, role=data["role"]
        )
        return Response(MemberOutputSerializer(membership).data)


class MemberDeleteApi(BaseApi):
    @extend_schema(responses={204: None})
    def delete(self, request: Request, project_id: int, user_id: int) -> Response:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=ADMIN_ROLES,
            action="manage members",
        )
        services.membership_delete(membership=_membership_or_404(project, user_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- documents ----------------------------------------------------------------------------------


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
        documents = selectors.documents_for_user(user=user, project=project).filter(**filters)
        return self.paginated(
            request, documents.order_by("position", "id"), DocumentListOutputSerializer
        )


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
        project = None
        if "project" in filters:
            project = permissions.project_for_user(user=user, project_id=filters["project"])
        # Assignments outlive memberships: only projects the user still belongs to count.
        queue = selectors.annotator_queue(user=user, project=project).filter(
            project__in=selectors.projects_for_user(user=user)
        )
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


# --- export ---------------------------------------------------------------------------------------


class _ExportNegotiation(DefaultContentNegotiation):
    """``?format=`` names the export format on this view, not a DRF renderer."""

    class settings:  # the attribute DefaultContentNegotiation reads
        URL_FORMAT_OVERRIDE = None


_SOURCE = re.compile(r"^(auto|gold|annotator:.+|machine:.+)$")


def _json_array(items: Iterable[Any]) -> Iterator[str]:
    yield "["
    for position, item in enumerate(items):
        yield ("," if position else "") + "\n" + json.dumps(item, ensure_ascii=False)
    yield "\n]\n"


class ProjectExportApi(BaseApi):
    content_negotiation_class = _ExportNegotiation

    class FilterSerializer(serializers.Serializer):
        format = serializers.ChoiceField(
            choices=["tab", "masks", "text"],
            default="tab",
            help_text="tab: TAB JSON; masks: {doc_id: [[start, end]]}; text: released texts.",
        )
        # The serializer metaclass takes declared fields out of the class, so these
        # names do not shadow Field attributes at run time; only the stubs object.
        source = serializers.RegexField(  # type: ignore[assignment]
            _SOURCE,
            default="auto",
            help_text="masks/text: auto, gold, annotator:<username> or machine:<source name>.",
        )
        style = serializers.ChoiceField(  # type: ignore[assignment]
            choices=list(REPLACEMENT_STYLES), default="type"
        )
        include_machine = serializers.BooleanField(default=False, help_text="tab only.")
        include_gold = serializers.BooleanField(default=False, help_text="tab only.")

    @extend_schema(
        parameters=[FilterSerializer],
        responses={(200, "application/json"): OpenApiTypes.ANY},
        summary="Export the project (admins and reviewers)",
    )
    def get(self, request: Request, project_id: int) -> Response | StreamingHttpResponse:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=REVIEWER_ROLES,
            action="export the project",
        )
        options = parse(self.FilterSerializer, request.query_params)
        if options["format"] == "masks":
            return Response(
                selectors.project_export_masks(project=project, source=options["source"])
            )
        if options["format"] == "tab":
            items: Iterable[Any] = selectors.project_export_tab(
                project=project,
                include_machine=options["include_machine"],
                include_gold=options["include_gold"],
            )
        else:
            items = selectors.project_export_release(
                project=project, source=options["source"], style=options["style"]
            )
        response = StreamingHttpResponse(_json_array(items), content_type="application/json")
        filename = f"project-{project.pk}-{options['format']}.json"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


# --- annotation sets ------------------------------------------------------------------------------


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


def set_detail(user: Any, annotation_set: Any) -> Any:
    annotation_set.editable = selectors.annotation_set_editable(
        user=user, annotation_set=annotation_set
    )
    return AnnotationSetDetailApi.OutputSerializer(annotation_set).data


class MyAnnotationSetApi(BaseApi):
    @extend_schema(
        request=None,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="The logged-in user's own set for the document, created on first use",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(user=user, document_id=document_id)
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


class GoldSetApi(BaseApi):
    @extend_schema(
        request=None,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="The document's gold set, created on first use (reviewers and admins)",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(
            user=user, document_id=document_id, roles=REVIEWER_ROLES, action="adjudicate"
        )
        gold = services.gold_set_for_document(document=document, user=user)
        return Response(set_detail(user, gold))


class GoldPublishApi(BaseApi):
    @extend_schema(
        request=None,
        responses=AnnotationSetDetailApi.OutputSerializer,
        summary="Publish the gold set: annotators may then see every set of the document",
    )
    def post(self, request: Request, document_id: int) -> Response:
        user = current_user(request)
        document = permissions.document_for_user(
            user=user, document_id=document_id, roles=REVIEWER_ROLES, action="publish gold sets"
        )
        gold = services.gold_publish(document=document, user=user)
        return Response(set_detail(user, gold))


# --- spans ----------------------------------------------------------------------------------------


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
        identifier_type = serializers.ChoiceField(
            choices=IdentifierType.choices, default=IdentifierType.QUASI
        )
        confidential_status = serializers.ChoiceField(
            choices=ConfidentialStatus.choices, default=ConfidentialStatus.NOT_CONFIDENTIAL
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
