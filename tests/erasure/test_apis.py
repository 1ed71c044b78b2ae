"""Erasure through the API: who may erase what (404 outside, 403 inside), the typed
confirmation and the reason (400 naming the field), and the audit list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotation.models import Document, Project, Role
from erasure.models import ErasureRecord
from tests.erasure.helpers import Scene, build_scene
from tests.factories import MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scene(settings: Any, tmp_path: Path) -> Scene:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.MODEL_DIR = tmp_path / "models"
    return build_scene(settings.UPLOAD_DIR, settings.MODEL_DIR)


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _outsider_admin() -> Any:
    """The admin of another project."""
    user = UserFactory.create(username="outsider")
    MembershipFactory.create(project=ProjectFactory.create(), user=user, role=Role.ADMIN)
    return user


def test_an_annotator_may_not_erase_a_document_or_the_project(scene: Scene) -> None:
    client = _client(scene.annotator)
    body = {"confirm": scene.document.external_id, "reason": "x"}
    answer = client.post(f"/api/documents/{scene.document.pk}/erase/", body, format="json")
    assert answer.status_code == 403 and "erase documents" in answer.json()["detail"]
    body = {"confirm": scene.project.name, "reason": "x"}
    answer = client.post(f"/api/projects/{scene.project.pk}/erase/", body, format="json")
    assert answer.status_code == 403 and "erase the project" in answer.json()["detail"]
    assert Document.objects.filter(pk=scene.document.pk).exists()


def test_another_projects_admin_is_told_nothing_exists(scene: Scene) -> None:
    client = _client(_outsider_admin())
    body = {"confirm": scene.document.external_id, "reason": "x"}
    assert client.post(f"/api/documents/{scene.document.pk}/erase/", body).status_code == 404
    body = {"confirm": scene.project.name, "reason": "x"}
    assert client.post(f"/api/projects/{scene.project.pk}/erase/", body).status_code == 404
    assert client.post("/api/documents/999999/erase/", body).status_code == 404
    assert Project.objects.filter(pk=scene.project.pk).exists()


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"reason": "x"}, "confirm", "required"),
        ({"confirm": "other-judgment", "reason": "x"}, "confirm", "external id exactly"),
        ({"confirm": "Galip_Yalman_judgment"}, "reason", "required"),
        ({"confirm": "Galip_Yalman_judgment", "reason": "   "}, "reason", "blank"),
        ({"confirm": "Galip_Yalman_judgment", "reason": "r" * 1001}, "reason", "1000"),
    ],
)
def test_a_document_erasure_needs_the_id_typed_back_and_a_reason(
    scene: Scene, body: dict[str, str], field: str, words: str
) -> None:
    answer = _client(scene.admin).post(
        f"/api/documents/{scene.document.pk}/erase/", body, format="json"
    )
    assert answer.status_code == 400
    assert words in " ".join(answer.json()[field])
    assert Document.objects.filter(pk=scene.document.pk).exists()
    assert not ErasureRecord.objects.exists()


def test_the_projects_admin_erases_a_document_and_then_the_project(scene: Scene) -> None:
    client = _client(scene.admin)
    body = {"confirm": "Galip_Yalman_judgment", "reason": "data subject request #4"}
    answer = client.post(f"/api/documents/{scene.document.pk}/erase/", body, format="json")
    assert answer.status_code == 201, answer.json()
    out = answer.json()
    assert out["kind"] == "document" and out["object_id"] == scene.document.pk
    assert out["label"] == f"document #{scene.document.pk} of project #{scene.project.pk}"
    assert out["actor"] == "erasure-admin" and out["removed"]["spans"] == 3
    assert not Document.objects.filter(pk=scene.document.pk).exists()

    wrong = client.post(
        f"/api/projects/{scene.project.pk}/erase/", {"confirm": "erasure", "reason": "x"}
    )
    assert wrong.status_code == 400 and "project's name" in wrong.json()["confirm"][0]
    body = {"confirm": "erasure project", "reason": "study over"}
    answer = client.post(f"/api/projects/{scene.project.pk}/erase/", body, format="json")
    assert answer.status_code == 201 and answer.json()["removed"]["documents"] == 1
    assert not Project.objects.filter(pk=scene.project.pk).exists()


def test_staff_erase_a_project_they_are_no_member_of(scene: Scene) -> None:
    staff = UserFactory.create(username="staffer", is_staff=True)
    body = {"confirm": "erasure project", "reason": "court order"}
    answer = _client(staff).post(f"/api/projects/{scene.project.pk}/erase/", body, format="json")
    assert answer.status_code == 201
    assert not Project.objects.filter(pk=scene.project.pk).exists()


def test_only_staff_erase_a_users_data(scene: Scene) -> None:
    url = f"/api/users/{scene.annotator.pk}/erase/"
    body = {"confirm": "erasure-annotator", "reason": "asked by the person"}
    # A project admin is not enough: the account spans projects.
    answer = _client(scene.admin).post(url, body, format="json")
    assert answer.status_code == 403 and "staff" in answer.json()["detail"]
    staff = UserFactory.create(username="staffer", is_staff=True)
    client = _client(staff)
    assert client.post("/api/users/999999/erase/", body, format="json").status_code == 404
    wrong = client.post(url, {**body, "confirm": "erasure-admin"}, format="json")
    assert wrong.status_code == 400 and "username" in wrong.json()["confirm"][0]
    answer = client.post(url, body, format="json")
    assert answer.status_code == 201 and answer.json()["label"] == (
        f"data of user #{scene.annotator.pk}"
    )
    # Its own account: refused with the rule named.
    own = client.post(f"/api/users/{staff.pk}/erase/", {"confirm": "staffer", "reason": "x"})
    assert own.status_code == 400 and "your own" in own.json()["detail"]


def test_the_audit_list_shows_staff_everything_and_others_their_own(scene: Scene) -> None:
    staff = UserFactory.create(username="staffer", is_staff=True)
    body = {"confirm": "other-judgment", "reason": "duplicate upload"}
    _client(scene.admin).post(f"/api/documents/{scene.other_document.pk}/erase/", body)
    body = {"confirm": "erasure project", "reason": "court order"}
    _client(staff).post(f"/api/projects/{scene.project.pk}/erase/", body)

    page = _client(staff).get("/api/erasures/?limit=1").json()
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]
    assert page["results"][0]["kind"] == "project"
    own = _client(scene.admin).get("/api/erasures/").json()
    assert [r["kind"] for r in own["results"]] == ["document"]
    assert own["results"][0]["reason"] == "duplicate upload"
    assert _client(scene.annotator).get("/api/erasures/").json()["count"] == 0
    bad = _client(staff).get("/api/erasures/?kind=everything")
    assert bad.status_code == 400 and "kind" in bad.json()
    assert APIClient().get("/api/erasures/").status_code in (401, 403)


def test_the_erasure_routes_have_a_clean_schema() -> None:
    from django.urls import include, path
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    from erasure import urls as erasure_urls

    GENERATOR_STATS.reset()
    patterns = [path("api/", include("erasure.urls"))]
    schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    assert not GENERATOR_STATS, dict(GENERATOR_STATS._warn_cache)
    validate_schema(schema)
    assert len(schema["paths"]) == len(erasure_urls.urlpatterns) == 4
    assert "PaginatedErasureRecordOutputList" in schema["components"]["schemas"]
