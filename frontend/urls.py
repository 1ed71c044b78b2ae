"""Browser pages, and the API endpoints only they use (under /ui/api/)."""

from django.urls import path

from frontend import apis, views

app_name = "frontend"
urlpatterns = [
    path("", views.home, name="home"),
    path("documents/<int:document_id>/annotate/", views.document_annotate, name="annotate"),
    path("documents/<int:document_id>/review/", views.document_review, name="review"),
    path("projects/<int:project_id>/agreement/", views.project_agreement, name="agreement"),
    path("projects/<int:project_id>/admin/", views.project_admin, name="project-admin"),
    path(
        "ui/api/documents/<int:document_id>/workspace/",
        apis.DocumentWorkspaceApi.as_view(),
        name="api-workspace",
    ),
    path(
        "ui/api/documents/<int:document_id>/agreement/",
        apis.DocumentAgreementApi.as_view(),
        name="api-document-agreement",
    ),
    path(
        "ui/api/projects/<int:project_id>/agreement/",
        apis.ProjectAgreementApi.as_view(),
        name="api-project-agreement",
    ),
    path(
        "ui/api/documents/<int:document_id>/gold/adopt/",
        apis.GoldAdoptApi.as_view(),
        name="api-gold-adopt",
    ),
    path(
        "ui/api/documents/<int:document_id>/gold/complete/",
        apis.GoldCompleteApi.as_view(),
        name="api-gold-complete",
    ),
    path(
        "ui/api/annotation-sets/<int:annotation_set_id>/rejections/",
        apis.SuggestionRejectApi.as_view(),
        name="api-suggestion-reject",
    ),
]
