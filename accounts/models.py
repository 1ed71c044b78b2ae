"""API tokens. The key itself is shown once, when it is made; the table keeps only its
SHA-256, so a copy of the database lets nobody act as the user."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True)
    key_hash = models.CharField(max_length=64, unique=True)
    # The key's first characters, so that a user can tell their tokens apart.
    prefix = models.CharField(max_length=8)
    # The user's session auth hash (derived from the password hash) when the token was
    # made: a password change alters it, and the token stops working (as sessions do).
    password_fingerprint = models.CharField(max_length=128)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user_id})"
