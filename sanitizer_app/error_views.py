"""Error answers outside the views: a page gets the app's styled 403/404 templates
(``frontend/templates/403.html``, ``404.html``), a path under ``/api/`` gets JSON like
every other API answer (``common.apis.exception_handler``)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

API_PREFIX = "/api/"


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(
            {"detail": str(exception) or "You do not have permission to do this."}, status=403
        )
    return defaults.permission_denied(request, exception)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent with a stale security token (e.g. the login page left open past a
    log-out elsewhere): the app's 403 page, saying what to do."""
    if _is_api(request):
        return JsonResponse({"detail": f"CSRF failed: {reason}"}, status=403)
    return defaults.permission_denied(
        request,
        PermissionDenied("the form was out of date: go back, reload the page and try again"),
    )
