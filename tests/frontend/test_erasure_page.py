"""The staff erasure page: staff only, accounts searchable by username and paged,
anonymised accounts left out."""

from __future__ import annotations

import pytest

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_only_staff_open_the_erasure_page(client):
    client.force_login(UserFactory.create(username="plain"))
    assert client.get("/erasure/").status_code == 403
    client.logout()
    assert client.get("/erasure/").status_code == 302  # to the login page


def test_the_page_lists_accounts_by_search_without_erased_ones(client):
    staff = UserFactory.create(username="steward", is_staff=True)
    UserFactory.create(username="alice-annotator")
    UserFactory.create(username="bob-annotator")
    UserFactory.create(username="erased-user-99")
    client.force_login(staff)
    response = client.get("/erasure/", {"q": "annotator"})
    assert response.status_code == 200
    names = [user.username for user in response.context["users"]]
    assert names == ["alice-annotator", "bob-annotator"]
    everyone = [user.username for user in client.get("/erasure/").context["users"]]
    assert "erased-user-99" not in everyone and "steward" in everyone
    # The staff member's own row offers no erase button.
    assert b'data-username="steward"' in client.get("/erasure/").content
