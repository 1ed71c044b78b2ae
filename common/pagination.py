"""The pagination of every list endpoint (``DEFAULT_PAGINATION_CLASS``).

A module of its own: DRF imports it while ``rest_framework.generics`` is still loading,
so it must not import the API base classes (``common.apis``).
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request


class CappedLimitOffsetPagination(LimitOffsetPagination):
    """``?limit=`` is clamped to ``settings.API_MAX_PAGE_SIZE``: one request must not
    serialise a whole table (``?limit=1000000000`` answered with every row)."""

    @property
    def max_limit(self) -> int:  # type: ignore[override]
        return int(settings.API_MAX_PAGE_SIZE)

    def get_limit(self, request: Request) -> int | None:
        limit = super().get_limit(request)
        # The default page size is clamped too, should it be set above the cap.
        return None if limit is None else min(limit, self.max_limit)
