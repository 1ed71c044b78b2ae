"""URL routes of the ml app (mounted under /api/): one path per operation."""

from django.urls import path

from ml import apis

urlpatterns = [
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
    path(
        "model-versions/<int:model_version_id>/comparison/",
        apis.ModelVersionComparisonApi.as_view(),
        name="model-version-comparison",
    ),
    path(
        "model-versions/<int:model_version_id>/deactivate/",
        apis.ModelVersionDeactivateApi.as_view(),
        name="model-version-deactivate",
    ),
]
