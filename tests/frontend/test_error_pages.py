"""The app's own pages for logging out, 403 and 404; the API keeps answering JSON."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from annotation.models import Role
from tests.factories import AssignmentFactory, DocumentFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def _styled(response: Any) -> str:
    html = response.content.decode()
    assert response["Content-Type"].startswith("text/html")
    assert '<header class="topbar">' in html
    assert "/static/frontend/app.css" in html
    return html


@pytest.fixture
def annotator_client() -> tuple[Client, Any]:
    document = DocumentFactory.create()
    user = UserFactory.create(username="ann")
    MembershipFactory.create(project=document.project, user=user, role=Role.ANNOTATOR)
    AssignmentFactory.create(document=document, user=user)
    client = Client()
    client.force_login(user)
    return client, document


def test_logout_lands_on_the_apps_login_page() -> None:
    client = Client()
    client.force_login(UserFactory.create())

    response = client.post("/accounts/logout/", follow=True)

    assert response.redirect_chain == [("/accounts/login/", 302)]
    html = _styled(response)
    assert "<h1>Log in</h1>" in html
    assert "quality time" not in html
    assert "registration/login.html" in [t.name for t in response.templates]
    assert client.get("/").status_code == 302  # logged out for real


def test_every_page_offers_a_post_logout_form(annotator_client: tuple[Client, Any]) -> None:
    client, _ = annotator_client
    html = client.get("/").content.decode()
    assert '<form method="post" action="/accounts/logout/" class="inline" id="logout-form">' in html
    assert 'name="csrfmiddlewaretoken"' in html


def test_missing_page_is_the_apps_404(annotator_client: tuple[Client, Any]) -> None:
    client, _ = annotator_client
    for path in ("/documents/999999/annotate/", "/no/such/page/"):
        response = client.get(path)
        assert response.status_code == 404
        html = _styled(response)
        assert "<h1>Page not found</h1>" in html
        assert f"<code>{path}</code>" in html
        assert 'id="logout-form"' in html  # the user is still shown as logged in
    anonymous = Client().get("/no/such/page/")
    assert anonymous.status_code == 404
    assert "<h1>Page not found</h1>" in _styled(anonymous)


def test_forbidden_page_is_the_apps_403_with_the_reason(
    annotator_client: tuple[Client, Any],
) -> None:
    client, document = annotator_client
    response = client.get(f"/documents/{document.pk}/review/")
    assert response.status_code == 403
    html = _styled(response)
    assert "<h1>Not allowed</h1>" in html
    assert "Your role (annotator) may not open this page." in html


def test_the_api_answers_json_for_missing_and_forbidden(
    annotator_client: tuple[Client, Any],
) -> None:
    client, document = annotator_client
    for path in ("/api/no/such/endpoint/", "/api/documents/999999/"):
        response = client.get(path)
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert "detail" in response.json()
    forbidden = client.get(f"/api/projects/{document.project_id}/export/")
    assert forbidden.status_code == 403
    assert forbidden["Content-Type"] == "application/json"
    assert "detail" in forbidden.json()


def test_a_stale_form_gets_the_apps_403() -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory.create())

    response = client.post("/accounts/logout/")  # no CSRF token

    assert response.status_code == 403
    html = _styled(response)
    assert "The form was out of date: go back, reload the page and try again." in html
    assert client.get("/").status_code == 200  # still logged in
