"""URL configuration: API under /api/, schema under /api/schema/ (Swagger UI at
/api/docs/, ReDoc at /api/redoc/), UI at /. Pages answer 403/404 with the app's own
templates (403.html, 404.html); the API answers JSON (common.apis.exception_handler)."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from sanitizer_app.api_docs import RedocView, SwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", RedocView.as_view(url_name="schema"), name="api-redoc"),
    # Before annotation's URLs: /api/auth/token/ makes the hashed, expiring tokens.
    path("api/", include("accounts.urls")),
    path("api/", include("annotation.urls")),
    path("api/", include("ml.urls")),
    path("api/", include("knowledge.urls")),
    path("api/", include("risk.urls")),
    path("api/", include("reid.urls")),
    path("api/", include("erasure.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("frontend.urls")),
]

handler403 = "sanitizer_app.error_views.permission_denied"
handler404 = "sanitizer_app.error_views.not_found"
