"""Login throttling (django-axes): after LOGIN_FAILURE_LIMIT wrong passwords for one
username from one address, even the right password is refused until the lockout ends
or an admin resets it; other users and addresses are not affected."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "pass-word-123"  # tests.factories.UserFactory's
LOGIN = "/accounts/login/"


def _login(client: Client, username: str, password: str, ip: str = "10.1.1.1") -> int:
    response = client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)
    return response.status_code


def test_the_right_password_is_refused_after_too_many_wrong_ones():
    UserFactory.create(username="alice")
    UserFactory.create(username="bob")
    limit = settings.AXES_FAILURE_LIMIT
    assert limit == 5

    for _ in range(limit - 1):
        assert _login(Client(), "alice", "wrong") == 200  # the form again, with its error
    assert _login(Client(), "alice", "wrong") == 429  # the limit: locked from here on
    client = Client()
    response = client.post(
        LOGIN, {"username": "alice", "password": PASSWORD}, REMOTE_ADDR="10.1.1.1"
    )

    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many wrong passwords" in page and "locked for" in page
    assert "_auth_user_id" not in client.session  # not logged in
    # The lockout is per username and address: others still log in.
    assert _login(Client(), "bob", PASSWORD) == 302
    assert _login(Client(), "alice", PASSWORD, ip="10.2.2.2") == 302

    # An admin's reset lifts it.
    call_command("axes_reset_username", "alice")
    assert _login(Client(), "alice", PASSWORD) == 302


def test_a_successful_login_resets_the_count():
    UserFactory.create(username="carol")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _login(Client(), "carol", "wrong")
    assert _login(Client(), "carol", PASSWORD) == 302
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _login(Client(), "carol", "wrong")
    assert _login(Client(), "carol", PASSWORD) == 302


def test_the_token_endpoint_is_throttled_too():
    UserFactory.create(username="dave")
    client = APIClient()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = client.post(
            "/api/auth/token/", {"username": "dave", "password": "wrong"}, REMOTE_ADDR="10.3.3.3"
        )
        assert response.status_code in (400, 429)
    response = client.post(
        "/api/auth/token/", {"username": "dave", "password": PASSWORD}, REMOTE_ADDR="10.3.3.3"
    )
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()
    assert not ApiToken.objects.filter(user__username="dave").exists()
