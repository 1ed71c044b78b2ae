"""API tokens: stored hashed, with an expiry, listed and revoked through the API, and
revoked by a password change; a revoked or expired token is refused."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import token_create, token_hash
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "pass-word-123"  # tests.factories.UserFactory's


def _new_token(client: APIClient, username: str, **extra: object) -> dict[str, Any]:
    response = client.post(
        "/api/auth/token/", {"username": username, "password": PASSWORD, **extra}, format="json"
    )
    assert response.status_code == 200, response.content
    return dict(response.json())


def _me(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/me/").status_code


def test_a_token_is_stored_hashed_and_expires():
    UserFactory.create(username="tina")
    body = _new_token(APIClient(), "tina", name="laptop")
    key = str(body["token"])

    stored = ApiToken.objects.get(pk=body["id"])
    assert stored.key_hash == token_hash(key) and key not in stored.key_hash
    assert not ApiToken.objects.filter(key_hash=key).exists()
    assert stored.prefix == key[:8] and stored.name == "laptop"
    assert timedelta(days=29) < stored.expires_at - timezone.now() <= timedelta(days=30)
    assert _me(key) == 200

    ApiToken.objects.filter(pk=stored.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _me(key) in (401, 403)


def test_tokens_are_listed_and_a_revoked_token_is_refused():
    UserFactory.create(username="tom")
    UserFactory.create(username="other")
    first = _new_token(APIClient(), "tom", name="ci")
    second = _new_token(APIClient(), "tom", name="notebook")
    foreign = _new_token(APIClient(), "other")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {first['token']}")

    listed = client.get("/api/auth/tokens/").json()["results"]
    assert {t["name"] for t in listed} == {"ci", "notebook"}
    assert all("token" not in t and "key_hash" not in t for t in listed)
    # Someone else's token cannot be revoked (nor seen).
    assert client.post(f"/api/auth/tokens/{foreign['id']}/revoke/").status_code == 404

    revoked = client.post(f"/api/auth/tokens/{second['id']}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    assert _me(str(second["token"])) in (401, 403)
    assert _me(str(first["token"])) == 200
    assert _me(str(foreign["token"])) == 200

    assert client.post("/api/auth/tokens/revoke-all/").json() == {"revoked": 1}
    assert _me(str(first["token"])) in (401, 403)


def test_a_password_change_revokes_every_token():
    user = UserFactory.create(username="pat")
    _, key = token_create(user=user)
    assert _me(key) == 200

    user = get_user_model().objects.get(pk=user.pk)
    user.set_password("another-pass-word-456")
    user.save()

    assert _me(key) in (401, 403)


def test_wrong_passwords_get_no_token_and_the_lifetime_is_bounded():
    UserFactory.create(username="uma")
    client = APIClient()
    wrong = client.post("/api/auth/token/", {"username": "uma", "password": "nope"}, format="json")
    assert wrong.status_code == 400 and "token" not in wrong.json()
    too_long = client.post(
        "/api/auth/token/",
        {"username": "uma", "password": PASSWORD, "days": 100_000},
        format="json",
    )
    assert too_long.status_code == 400
    assert _me("not-a-token") in (401, 403)


def test_the_token_routes_have_a_valid_schema():
    from django.urls import include, path
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    GENERATOR_STATS.reset()
    patterns = [path("api/", include("accounts.urls"))]
    schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    assert not GENERATOR_STATS, dict(GENERATOR_STATS._warn_cache)
    validate_schema(schema)
    assert set(schema["paths"]) == {
        "/api/auth/token/",
        "/api/auth/tokens/",
        "/api/auth/tokens/revoke-all/",
        "/api/auth/tokens/{token_id}/revoke/",
    }
    assert "tokenAuth" in schema["components"]["securitySchemes"]
