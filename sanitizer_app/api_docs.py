"""The API's Swagger UI and ReDoc pages, served with everything they load from the app.

drf-spectacular-sidecar puts Swagger UI's and ReDoc's scripts among the static files
(``SPECTACULAR_SETTINGS`` names them ``SIDECAR``). Two things would still reach out:
drf-spectacular's ReDoc template links Google Fonts (the app's template leaves them out),
and ReDoc's menu draws Redocly's logo from its CDN. A privacy tool must not call
anyone, so both pages answer with a Content-Security-Policy that allows this origin
only: the browser never even sends such a request. Neither runs an inline script:
Swagger UI's start script is served as a file (drf-spectacular's split view) and ReDoc's
comes from ``frontend/api_redoc.js``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.request import Request
from rest_framework.response import Response

# The app's policy (settings.CONTENT_SECURITY_POLICY) plus what the two bundles need:
# the styles they inject, their inline SVG images and ReDoc's search worker (blob:).
# Still no inline script, no eval and no other origin for anything.
SAME_ORIGIN_ONLY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class _SameOriginOnly:
    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        response["Content-Security-Policy"] = SAME_ORIGIN_ONLY
        return response


class SwaggerView(_SameOriginOnly, SpectacularSwaggerSplitView):
    pass


class RedocView(_SameOriginOnly, SpectacularRedocView):
    template_name = "frontend/api_redoc.html"
