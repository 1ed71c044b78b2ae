"""URL routes of the erasure app (mounted under /api/): one path per operation."""

from django.urls import path

from erasure import apis

urlpatterns = [
    path(
        "documents/<int:document_id>/erase/",
        apis.DocumentEraseApi.as_view(),
        name="document-erase",
    ),
    path(
        "projects/<int:project_id>/erase/",
        apis.ProjectEraseApi.as_view(),
        name="project-erase",
    ),
    path("users/<int:user_id>/erase/", apis.UserDataEraseApi.as_view(), name="user-erase"),
    path("erasures/", apis.ErasureListApi.as_view(), name="erasure-list"),
]
