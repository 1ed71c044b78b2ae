"""Reads of API tokens: the user's own list, and the token a request presents."""

from __future__ import annotations

import hmac
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import ApiToken
from accounts.services import token_hash


def token_list(*, user: Any) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def token_for_user(*, user: Any, token_id: int) -> ApiToken | None:
    """One of the user's own tokens (another user's is as good as missing)."""
    return ApiToken.objects.filter(user=user, pk=token_id).first()


def token_valid(*, key: str) -> ApiToken | None:
    """The live token with this key: not revoked, not expired, its user active and
    with the password the token was made under; else None."""
    token = ApiToken.objects.select_related("user").filter(key_hash=token_hash(key)).first()
    if token is None or token.revoked_at is not None or token.expires_at <= timezone.now():
        return None
    user = token.user
    if not user.is_active:
        return None
    if not hmac.compare_digest(token.password_fingerprint, user.get_session_auth_hash()):
        return None
    return token
