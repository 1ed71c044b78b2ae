"""Writes of API tokens: make one (the only moment its key is known), revoke one or all."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken
from common.errors import DomainError

KEY_BYTES = 32


def token_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def token_create(*, user: Any, name: str = "", days: int | None = None) -> tuple[ApiToken, str]:
    """A new token for ``user`` and its key (shown to the user once, never stored)."""
    longest = settings.API_TOKEN_MAX_DAYS
    days = settings.API_TOKEN_DAYS if days is None else days
    if not 1 <= days <= longest:
        raise DomainError(f"a token lasts between 1 and {longest} days")
    key = secrets.token_urlsafe(KEY_BYTES)
    token = ApiToken(
        user=user,
        name=name,
        key_hash=token_hash(key),
        prefix=key[:8],
        password_fingerprint=user.get_session_auth_hash(),
        expires_at=timezone.now() + timedelta(days=days),
    )
    token.full_clean()
    token.save()
    return token, key


@transaction.atomic
def token_revoke(*, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


@transaction.atomic
def tokens_revoke_all(*, user: Any) -> int:
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def token_touch(*, token: ApiToken, every_seconds: int = 300) -> None:
    """Record that the token was used, at most once per ``every_seconds``."""
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > every_seconds:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
