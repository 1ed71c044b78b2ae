"""Projects, members, the current user, token login, error mapping and the schema."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.http import HttpRequest
from rest_framework.test import APIClient

from annotation.models import Membership, Project, Role
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import UserFactory


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def test_token_login_then_token_requests(world: World) -> None:
    client = APIClient()
    wrong = client.post(
        "/api/auth/token/", {"username": "reviewer-user", "password": "nope"}, format="json"
    )
    assert wrong.status_code == 400
    response = client.post(
        "/api/auth/token/",
        {"username": "reviewer-user", "password": "pass-word-123"},
        format="json",
    )
    assert response.status_code == 200, response.content
    token = response.json()["token"]

    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = client.get("/api/me/")
    assert me.status_code == 200
    assert me.json()["username"] == "reviewer-user"

    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert client.get("/api/me/").status_code in (401, 403)


def test_session_login_works_too(world: World) -> None:
    client = APIClient()
    # django-axes counts attempts per address: authenticate needs the request.
    assert client.login(request=HttpRequest(), username="admin-user", password="pass-word-123")
    assert client.get(f"/api/projects/{world.project.pk}/").status_code == 200


def test_me_lists_project_roles(world: World) -> None:
    body = world.client("reviewer").get("/api/me/").json()
    assert body["projects"] == [
        {"id": world.project.pk, "name": "matrix project", "role": "reviewer"}
    ]
    assert body["is_staff"] is False


def test_project_list_shows_only_the_users_projects_paginated(world: World) -> None:
    for i in range(3):
        Membership.objects.create(
            project=Project.objects.create(name=f"extra {i}"),
            user=world.users["annotator"],
            role=Role.ANNOTATOR,
        )
    outsider = world.client("outsider").get("/api/projects/").json()
    assert [p["name"] for p in outsider["results"]] == ["someone else's project"]
    page = world.client("annotator").get("/api/projects/?limit=2&offset=1").json()
    assert page["count"] == 4
    assert [p["name"] for p in page["results"]] == ["extra 1", "extra 2"]
    assert page["next"] is not None


def test_project_create_makes_the_creator_admin(world: World) -> None:
    client = world.client("annotator")
    response = client.post(
        "/api/projects/create/", {"name": "new one", "k_anonymity": 3}, format="json"
    )
    assert response.status_code == 201, response.content
    project = Project.objects.get(pk=response.json()["id"])
    assert project.k_anonymity == 3
    assert Membership.objects.get(project=project).role == Role.ADMIN
    assert (
        client.patch(
            f"/api/projects/{project.pk}/update/", {"guidelines": "mask names"}, format="json"
        ).json()["guidelines"]
        == "mask names"
    )


def test_duplicate_project_name_is_a_validation_error(world: World) -> None:
    client = world.client("admin")
    assert client.post("/api/projects/create/", {"name": "mine"}, format="json").status_code == 201
    response = client.post("/api/projects/create/", {"name": "mine"}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()
    renamed = client.patch(
        f"/api/projects/{world.project.pk}/update/", {"name": "mine"}, format="json"
    )
    assert renamed.status_code == 200  # the matrix project has another creator


def test_project_names_of_others_cannot_be_probed(world: World) -> None:
    """Creating a project named like someone else's succeeds: a refusal would confirm
    that the name exists somewhere."""
    for name in ("someone else's project", "no project has this name"):
        response = world.client("annotator").post(
            "/api/projects/create/", {"name": name}, format="json"
        )
        assert response.status_code == 201, response.content


def test_project_update_validates(world: World) -> None:
    response = world.client("admin").patch(
        f"/api/projects/{world.project.pk}/update/", {"risk_threshold": 2}, format="json"
    )
    assert response.status_code == 400
    world.project.refresh_from_db()
    assert world.project.risk_threshold == 0.5


def test_members_add_change_remove(world: World) -> None:
    admin = world.client("admin")
    base = f"/api/projects/{world.project.pk}/members"
    newcomer = UserFactory.create(username="newcomer")
    # Adding invites: the newcomer is a member only once they accept.
    added = admin.post(f"{base}/add/", {"username": "newcomer"}, format="json")
    assert added.status_code == 202
    assert not Membership.objects.filter(user=newcomer).exists()
    invitee = APIClient()
    invitee.force_authenticate(newcomer)
    (invitation,) = invitee.get("/api/invitations/").json()["results"]
    accepted = invitee.post(f"/api/invitations/{invitation['id']}/accept/")
    assert accepted.json()["role"] == "annotator"
    changed = admin.patch(f"{base}/{newcomer.pk}/update/", {"role": "reviewer"}, format="json")
    assert changed.json()["role"] == "reviewer"
    listing = world.client("annotator").get(f"{base}/").json()
    assert {m["user"]["username"]: m["role"] for m in listing["results"]}["newcomer"] == "reviewer"
    assert admin.delete(f"{base}/{newcomer.pk}/delete/").status_code == 204
    assert not Membership.objects.filter(user=newcomer).exists()
    assert admin.delete(f"{base}/{newcomer.pk}/delete/").status_code == 404
    # No enumeration: a missing name is answered like an existing one.
    unknown = admin.post(f"{base}/add/", {"username": "nobody"}, format="json")
    assert (unknown.status_code, unknown.json()) == (added.status_code, added.json())


def test_the_last_admin_cannot_leave_or_be_demoted(world: World) -> None:
    admin = world.client("admin")
    base = f"/api/projects/{world.project.pk}/members/{world.users['admin'].pk}"
    removed = admin.delete(f"{base}/delete/")
    assert removed.status_code == 400
    assert removed.json() == {"detail": "a project keeps at least one admin"}
    demoted = admin.patch(f"{base}/update/", {"role": "annotator"}, format="json")
    assert demoted.status_code == 400
    assert Membership.objects.get(user=world.users["admin"], project=world.project).role == "admin"


def test_outsider_cannot_learn_whether_a_project_exists(world: World) -> None:
    outsider = world.client("outsider")
    existing = outsider.get(f"/api/projects/{world.project.pk}/")
    missing = outsider.get("/api/projects/999999/")
    assert existing.status_code == missing.status_code == 404
    assert existing.json() == missing.json()


def test_superuser_acts_as_admin_everywhere(world: World) -> None:
    root = UserFactory.create(username="root", is_superuser=True, is_staff=True)
    client = APIClient()
    client.force_authenticate(root)
    assert client.get(f"/api/projects/{world.project.pk}/members/").status_code == 200
    names = {p["name"] for p in client.get("/api/projects/").json()["results"]}
    assert names == {"matrix project", "someone else's project"}


def test_schema_is_served_to_logged_in_users_only(db: Any) -> None:
    assert APIClient().get("/api/schema/").status_code in (401, 403)
    assert APIClient().get("/api/docs/").status_code in (401, 403)
    client = APIClient()
    client.force_authenticate(UserFactory.create(username="schema-reader"))
    response = client.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    assert "/api/spans/{span_id}/update/" in schema["paths"]
    patch = schema["paths"]["/api/spans/{span_id}/update/"]["patch"]
    assert set(patch["responses"]) >= {"200", "409"}


def test_schema_of_these_apis_validates_without_warnings(db: Any) -> None:
    """The same check as ``manage.py spectacular --validate --fail-on-warn``, limited to
    the annotation routes (jobs included) so other apps' views do not decide the outcome."""
    from django.urls import include, path
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    patterns = [path("api/", include("annotation.urls"))]
    GENERATOR_STATS.reset()
    schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    assert not GENERATOR_STATS, (
        dict(GENERATOR_STATS._warn_cache),
        dict(GENERATOR_STATS._error_cache),
    )
    validate_schema(schema)
    assert "PaginatedJobOutputList" in schema["components"]["schemas"]
    # One path per route of annotation.urls: jobs and imports, the browser's endpoints
    # and the review's included (the token login moved to accounts.urls).
    from annotation import urls as annotation_urls

    assert len(schema["paths"]) == len(annotation_urls.urlpatterns) >= 42


def test_recognizer_components_are_checked_against_the_registry(world: World) -> None:
    client = world.client("admin")
    chosen = {"recognizer_components": ["rules", "gazetteer"]}
    created = client.post(
        "/api/projects/create/", {"name": "rules only", "privacy_settings": chosen}, format="json"
    )
    assert created.status_code == 201, created.content
    assert created.json()["privacy_settings"] == chosen

    unknown = client.post(
        "/api/projects/create/",
        {"name": "typo", "privacy_settings": {"recognizer_components": ["rules", "gazeteer"]}},
        format="json",
    )
    assert unknown.status_code == 400
    assert "gazeteer" in unknown.json()["detail"]
    assert not Project.objects.filter(name="typo").exists()

    url = f"/api/projects/{world.project.pk}/update/"
    for bad in (["nope"], [], "rules", [1]):
        response = client.patch(
            url, {"privacy_settings": {"recognizer_components": bad}}, format="json"
        )
        assert response.status_code == 400, bad
    world.project.refresh_from_db()
    assert world.project.privacy_settings == {}
    assert (
        client.patch(
            url, {"privacy_settings": {"recognizer_components": ["spacy_ner"]}}, format="json"
        ).status_code
        == 200
    )


def test_a_newly_registered_component_is_accepted(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    import catalogue

    from sanitizer.recognizer.registry import component_registry

    name = "test_only_component"

    def factory() -> None:  # never built: the project only names it
        return None

    # Registered through monkeypatch so the entry leaves the global registry afterwards
    # (other tests in this process list the built-in components).
    namespace = component_registry._registry.namespace
    monkeypatch.setitem(catalogue.REGISTRY, (*namespace, name), factory)
    response = world.client("admin").patch(
        f"/api/projects/{world.project.pk}/update/",
        {"privacy_settings": {"recognizer_components": [name]}},
        format="json",
    )
    assert response.status_code == 200, response.content
