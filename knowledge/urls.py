"""Routes of the knowledge-base API (mounted under /api/)."""

from django.urls import path

from knowledge import apis

urlpatterns = [
    path("knowledge-bases/", apis.KnowledgeBaseListApi.as_view(), name="knowledge-base-list"),
    path(
        "knowledge-bases/<int:knowledge_base_id>/",
        apis.KnowledgeBaseDetailApi.as_view(),
        name="knowledge-base-detail",
    ),
    path(
        "projects/<int:project_id>/knowledge-bases/upload/",
        apis.KnowledgeBaseUploadApi.as_view(),
        name="knowledge-base-upload",
    ),
    path(
        "projects/<int:project_id>/distant-label/",
        apis.DistantLabelStartApi.as_view(),
        name="distant-label-start",
    ),
]
