"""Routes of the risk API (mounted under /api/)."""

from django.urls import path

from risk import apis

urlpatterns = [
    path("documents/<int:document_id>/risk/solve/", apis.RiskSolveApi.as_view(), name="risk-solve"),
    path("projects/<int:project_id>/risk/curve/", apis.RiskCurveApi.as_view(), name="risk-curve"),
]
