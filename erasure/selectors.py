"""Reads of the erasure app: the audit records and the accounts staff may erase."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet

from erasure.models import ERASED_USERNAME_PREFIX, ErasureRecord

USERS_PER_PAGE = 50
SEARCH_MAX_CHARS = 150


def erasure_records_for_user(*, user: Any, kind: str | None = None) -> QuerySet[ErasureRecord]:
    """Staff read every record; anyone else the erasures they made themselves (the
    projects of the others may be gone, so there is no membership to check)."""
    records = ErasureRecord.objects.select_related("actor")
    if not (user.is_staff or user.is_superuser):
        records = records.filter(actor=user)
    if kind:
        records = records.filter(kind=kind)
    return records.order_by("-created_at", "-id")


def erasable_users(*, search: str = "") -> QuerySet[Any]:
    """Accounts whose data may be erased (not already anonymised), by username."""
    users = get_user_model().objects.exclude(username__startswith=ERASED_USERNAME_PREFIX)
    if search:
        users = users.filter(username__icontains=search)
    return users.order_by("username", "id")


def erasable_users_page(*, search: str = "", page: Any = 1) -> Page[Any]:
    """One page of :func:`erasable_users` (a page number out of range gives the last)."""
    users = erasable_users(search=search[:SEARCH_MAX_CHARS])
    return Paginator(users, USERS_PER_PAGE).get_page(page)
