"""Routes of the re-identification API (mounted under /api/)."""

from django.urls import path

from reid import apis

urlpatterns = [
    path("documents/<int:document_id>/reid/", apis.DocumentReidApi.as_view(), name="reid-info"),
    path(
        "documents/<int:document_id>/reid/target/",
        apis.DocumentReidTargetApi.as_view(),
        name="reid-target",
    ),
    path(
        "documents/<int:document_id>/reid/rank/",
        apis.DocumentReidRankApi.as_view(),
        name="reid-rank",
    ),
    path(
        "documents/<int:document_id>/reid/suggest/",
        apis.DocumentReidSuggestApi.as_view(),
        name="reid-suggest",
    ),
    path(
        "documents/<int:document_id>/reid/versions/",
        apis.DocumentReidVersionsApi.as_view(),
        name="reid-versions",
    ),
    path(
        "projects/<int:project_id>/reid/curve/",
        apis.ProjectReidCurveApi.as_view(),
        name="reid-curve",
    ),
]
