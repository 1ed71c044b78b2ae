"""URL routes of the annotation app (mounted under /api/): one path per operation."""

from django.urls import path

from annotation.apis import (
    agreement,
    annotation_sets,
    documents,
    exports,
    invitations,
    jobs,
    projects,
    review,
    spans,
)

urlpatterns = [
    path("me/", projects.MeApi.as_view(), name="me"),
    path("me/queue/", documents.MyQueueApi.as_view(), name="my-queue"),
    # projects and members
    path("projects/", projects.ProjectListApi.as_view(), name="project-list"),
    path("projects/create/", projects.ProjectCreateApi.as_view(), name="project-create"),
    path("projects/<int:project_id>/", projects.ProjectDetailApi.as_view(), name="project-detail"),
    path(
        "projects/<int:project_id>/update/",
        projects.ProjectUpdateApi.as_view(),
        name="project-update",
    ),
    path(
        "projects/<int:project_id>/members/",
        projects.MemberListApi.as_view(),
        name="member-list",
    ),
    path(
        # Kept for clients of the old "add member" call: it invites now, like the route below.
        "projects/<int:project_id>/members/add/",
        invitations.InvitationCreateApi.as_view(),
        name="member-add",
    ),
    path(
        "projects/<int:project_id>/invitations/",
        invitations.InvitationCreateApi.as_view(),
        name="invitation-create",
    ),
    path("invitations/", invitations.InvitationListApi.as_view(), name="invitation-list"),
    path(
        "invitations/<int:invitation_id>/accept/",
        invitations.InvitationAcceptApi.as_view(),
        name="invitation-accept",
    ),
    path(
        "invitations/<int:invitation_id>/decline/",
        invitations.InvitationDeclineApi.as_view(),
        name="invitation-decline",
    ),
    path(
        "projects/<int:project_id>/members/<int:user_id>/update/",
        projects.MemberUpdateApi.as_view(),
        name="member-update",
    ),
    path(
        "projects/<int:project_id>/members/<int:user_id>/delete/",
        projects.MemberDeleteApi.as_view(),
        name="member-delete",
    ),
    path(
        "projects/<int:project_id>/agreement/",
        agreement.ProjectAgreementApi.as_view(),
        name="project-agreement",
    ),
    # documents
    path(
        "projects/<int:project_id>/documents/",
        documents.DocumentListApi.as_view(),
        name="document-list",
    ),
    path(
        "projects/<int:project_id>/assignments/create/",
        documents.AssignmentCreateApi.as_view(),
        name="assignment-create",
    ),
    path(
        "projects/<int:project_id>/export/",
        exports.ProjectExportApi.as_view(),
        name="project-export",
    ),
    path(
        "documents/<int:document_id>/",
        documents.DocumentDetailApi.as_view(),
        name="document-detail",
    ),
    path(
        "documents/<int:document_id>/update/",
        documents.DocumentUpdateApi.as_view(),
        name="document-update",
    ),
    path(
        "documents/<int:document_id>/release/",
        documents.DocumentReleaseApi.as_view(),
        name="document-release",
    ),
    path(
        "documents/<int:document_id>/workspace/",
        annotation_sets.DocumentWorkspaceApi.as_view(),
        name="document-workspace",
    ),
    path(
        "documents/<int:document_id>/agreement/",
        agreement.DocumentAgreementApi.as_view(),
        name="document-agreement",
    ),
    # annotation sets
    path(
        "documents/<int:document_id>/annotation-sets/",
        annotation_sets.AnnotationSetListApi.as_view(),
        name="annotation-set-list",
    ),
    path(
        "documents/<int:document_id>/annotation-sets/mine/",
        annotation_sets.MyAnnotationSetApi.as_view(),
        name="annotation-set-mine",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/",
        annotation_sets.AnnotationSetDetailApi.as_view(),
        name="annotation-set-detail",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/submit/",
        annotation_sets.AnnotationSetSubmitApi.as_view(),
        name="annotation-set-submit",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/events/",
        spans.AnnotationSetEventListApi.as_view(),
        name="annotation-set-events",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/entity-decision/",
        annotation_sets.EntityDecisionApi.as_view(),
        name="entity-decision",
    ),
    path(
        "annotation-sets/<int:annotation_set_id>/rejections/",
        annotation_sets.SuggestionRejectApi.as_view(),
        name="suggestion-reject",
    ),
    # review
    path("documents/<int:document_id>/gold/", review.GoldSetApi.as_view(), name="gold-set"),
    path(
        "documents/<int:document_id>/gold/publish/",
        review.GoldPublishApi.as_view(),
        name="gold-publish",
    ),
    path(
        "documents/<int:document_id>/gold/adopt/",
        review.GoldAdoptApi.as_view(),
        name="gold-adopt",
    ),
    path(
        "documents/<int:document_id>/gold/adopt-set/",
        review.GoldAdoptSetApi.as_view(),
        name="gold-adopt-set",
    ),
    path(
        "documents/<int:document_id>/gold/regions/",
        review.GoldRegionsApi.as_view(),
        name="gold-regions",
    ),
    path(
        "documents/<int:document_id>/gold/complete/",
        review.GoldCompleteApi.as_view(),
        name="gold-complete",
    ),
    # spans
    path(
        "annotation-sets/<int:annotation_set_id>/spans/create/",
        spans.SpanCreateApi.as_view(),
        name="span-create",
    ),
    path("spans/<int:span_id>/", spans.SpanDetailApi.as_view(), name="span-detail"),
    path("spans/<int:span_id>/update/", spans.SpanUpdateApi.as_view(), name="span-update"),
    path("spans/<int:span_id>/delete/", spans.SpanDeleteApi.as_view(), name="span-delete"),
    path("spans/<int:span_id>/events/", spans.SpanEventListApi.as_view(), name="span-events"),
    # jobs and imports
    path("jobs/", jobs.JobListApi.as_view(), name="job-list"),
    path("jobs/<int:job_id>/", jobs.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<int:job_id>/cancel/", jobs.JobCancelApi.as_view(), name="job-cancel"),
    path("jobs/<int:job_id>/retry/", jobs.JobRetryApi.as_view(), name="job-retry"),
    path(
        "projects/<int:project_id>/jobs/create/",
        jobs.JobCreateApi.as_view(),
        name="job-create",
    ),
    path(
        "projects/<int:project_id>/import/",
        jobs.ImportApi.as_view(),
        name="project-import",
    ),
]
