"""DRF authentication by ``Authorization: Token <key>`` against the hashed tokens."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from accounts.models import ApiToken
from accounts.selectors import token_valid
from accounts.services import token_touch

KEYWORD = "Token"


class HashedTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != KEYWORD.lower().encode():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header.")
        try:
            key = parts[1].decode()
        except UnicodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token header.") from exc
        token = token_valid(key=key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid, expired or revoked token.")
        token_touch(token=token)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return KEYWORD


class HashedTokenScheme(OpenApiAuthenticationExtension):
    """The OpenAPI schema's description of this authentication (as DRF's own token's)."""

    target_class = "accounts.authentication.HashedTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": 'Token-based authentication with required prefix "Token"',
        }
