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

from django.conf import settings
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.request import Request
from rest_framework.response import Response

# What the two bundles need beyond the app's policy (which already allows their inline
# SVG images, data:): the styles they inject (inline styles everywhere, so the app's
# narrower style-src-attr goes) and ReDoc's search worker (blob:). Still no inline
# script, no eval and no other origin for anything.
_DOCS_EXTRA = {"style-src": ["'unsafe-inline'"], "worker-src": ["'self'", "blob:"]}
_DOCS_DROPPED = frozenset({"style-src-attr"})


def docs_policy() -> str:
    """The Content-Security-Policy of the doc pages: the app's
    (``settings.CONTENT_SECURITY_POLICY``, read on each call) with ``_DOCS_EXTRA`` added
    and ``_DOCS_DROPPED`` left out.

    Built here rather than by django-csp's per-response update, which lists the
    directives in an order that changes from one process to the next; this keeps the
    settings' order (``default-src`` first).
    """
    directives: dict[str, list[str]] = {}
    for name, sources in settings.CONTENT_SECURITY_POLICY["DIRECTIVES"].items():
        # As django-csp reads them: None or False leaves a directive out, True writes
        # its bare name (upgrade-insecure-requests), a string is one source.
        if name in _DOCS_DROPPED or sources is None or sources is False:
            continue
        directives[name] = (
            [] if sources is True else [sources] if isinstance(sources, str) else list(sources)
        )
    for name, sources in _DOCS_EXTRA.items():
        directives[name] = [*directives.get(name, []), *sources]
    return "; ".join(" ".join([name, *sources]) for name, sources in directives.items())


class _SameOriginOnly:
    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        # Set before CSPMiddleware runs, which then leaves the header as it is.
        response["Content-Security-Policy"] = docs_policy()
        return response


class SwaggerView(_SameOriginOnly, SpectacularSwaggerSplitView):
    pass


class RedocView(_SameOriginOnly, SpectacularRedocView):
    template_name = "frontend/api_redoc.html"
