"""HTTP behaviour every app shares."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class NoStoreMiddleware:
    """Answers API calls and pages with ``Cache-Control: no-store``.

    The editor's state is whatever the server holds right now: a cached API answer or
    page shown on Back/Forward would present an old version as saved, and the next
    edit would conflict with the user's own earlier one. Static files (served before
    this middleware by WhiteNoise) keep their long-lived caching; a view that set its
    own Cache-Control keeps it, except under /api/, which is never stored.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response
        self.static_prefix = settings.STATIC_URL or "/static/"
        if not self.static_prefix.startswith("/"):
            self.static_prefix = f"/{self.static_prefix}"

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        path = request.path
        if path.startswith("/api/") or (
            not path.startswith(self.static_prefix) and not response.has_header("Cache-Control")
        ):
            response["Cache-Control"] = "no-store"
        return response
