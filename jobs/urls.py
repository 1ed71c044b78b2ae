"""URL routes of the jobs app (mounted under /api/): one path per operation."""

from django.urls import path

from jobs import apis

urlpatterns = [
    path("jobs/", apis.JobListApi.as_view(), name="job-list"),
    path("jobs/<int:job_id>/", apis.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<int:job_id>/cancel/", apis.JobCancelApi.as_view(), name="job-cancel"),
    path("projects/<int:project_id>/jobs/create/", apis.JobCreateApi.as_view(), name="job-create"),
    path("projects/<int:project_id>/import/", apis.ImportApi.as_view(), name="project-import"),
    path("model-versions/", apis.ModelVersionListApi.as_view(), name="model-version-list"),
    path(
        "model-versions/<int:model_version_id>/",
        apis.ModelVersionDetailApi.as_view(),
        name="model-version-detail",
    ),
    path(
        "model-versions/<int:model_version_id>/activate/",
        apis.ModelVersionActivateApi.as_view(),
        name="model-version-activate",
    ),
]
