"""The API's Swagger UI and ReDoc pages, served with everything they load from the app.

drf-spectacular-sidecar puts Swagger UI's and ReDoc's scripts among the static files
(``SPECTACULAR_SETTINGS`` names them ``SIDECAR``). Two things would still reach out:
drf-spectacular's ReDoc template links Google Fonts (the app's template leaves them out),
and ReDoc's menu draws Redocly's logo from its CDN. A privacy tool must not call
anyone, so both pages answer with a Content-Security-Policy that allows this origin
only: the browser never even sends such a request.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView
from rest_framework.request import Request
from rest_framework.response import Response

# Inline scripts and eval: both pages' bundles use them; no other origin for anything.
SAME_ORIGIN_ONLY = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:"


class _SameOriginOnly:
    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        response["Content-Security-Policy"] = SAME_ORIGIN_ONLY
        return response


class SwaggerView(_SameOriginOnly, SpectacularSwaggerView):
    pass


class RedocView(_SameOriginOnly, SpectacularRedocView):
    template_name = "frontend/api_redoc.html"
