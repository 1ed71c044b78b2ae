"""URL routes of the annotation app (mounted under /api/): one path per operation."""

from django.urls import path
from rest_framework.authtoken.views import obtain_auth_token

from annotation import apis

urlpatterns = [
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("me/", apis.MeApi.as_view(), name="me"),
    path("me/queue/", apis.MyQueueApi.as_view(), name="my-queue"),
    # projects and members
    path("projects/", apis.ProjectListApi.as_view(), name="project-list"),
    path("projects/create/", apis.ProjectCreateApi.as_view(), name="project-create"),
    path("projects/<int:project_id>/", apis.ProjectDetailApi.as_view(), name="project-detail"),
    path(
        "projects/<int:project_id>/update/",
        apis.ProjectUpdateApi.as_view(),
        name="project-update",
    ),
    path("projects/<int:project_id>/members/", apis.MemberListApi.as_view(), name="member-list"),
    path("projects/<int:project_id>/members/add/", apis.MemberAddApi.as_view(), name="member-add"),
    path(
        "projects/<int:project_id>/members/<int:user_id>/update/",
        apis.MemberUpdateApi.as_view(),
        name="member-update",
    ),
    path(
        "projects/<int:project_id>/members/<int:user_id>/delete/",
        apis.MemberDeleteApi.as_view(),
        name="member-delete",
    ),
    # documents
    path(
        "projects/<int:project_id>/documents/",
        apis.DocumentListApi.as_view(),
        name="document-list",
    ),
    path(
        "projects/<int:project_id>/assignments/create/",
        apis.AssignmentCreateApi.as_view(),
        name="assignment-create",
    ),
    path(
        "projects/<int:project_id>/export/", apis.ProjectExportApi.as_view(), name="project-export"
    ),
    path("documents/<int:document_id>/", apis.DocumentDetailApi.as_view(), name="document-detail"),
    path(
        "documents/<int:document_id>/update/",
        apis.DocumentUpdateApi.as_view(),
        name="document-update",
    ),
    # annotation sets
    path(
        "documents/<int:document_id>/annotation-sets/",
        apis.AnnotationSetListApi.as_view(),
        name="annotation-set-list",
    ),
    path(
        "documents/<int:document_id>/annotation-sets/mine/",
        apis.MyAnnotationSetApi.as_view(),
        name="annotation-set-mine",
    ),
    path("documents/<int:document_id>/gold/", apis.GoldSetApi.as_view(), name="gold-set"),
    path(
        "documents/<int:document_id>/gold/publish/",
        apis.GoldPublishApi.as_view(),
        name="gold-publish",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/",
        apis.AnnotationSetDetailApi.as_view(),
        name="annotation-set-detail",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/submit/",
        apis.AnnotationSetSubmitApi.as_view(),
        name="annotation-set-submit",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/events/",
        apis.AnnotationSetEventListApi.as_view(),
        name="annotation-set-events",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/entity-decision/",
        apis.EntityDecisionApi.as_view(),
        name="entity-decision",
    ),
    # spans
    path(
        "annotation-sets/<int:annotation_set_id>/spans/create/",
        apis.SpanCreateApi.as_view(),
        name="span-create",
    ),
    path("spans/<int:span_id>/", apis.SpanDetailApi.as_view(), name="span-detail"),
    path("spans/<int:span_id>/update/", apis.SpanUpdateApi.as_view(), name="span-update"),
    path("spans/<int:span_id>/delete/", apis.SpanDeleteApi.as_view(), name="span-delete"),
    path("spans/<int:span_id>/events/", apis.SpanEventListApi.as_view(), name="span-events"),
]
