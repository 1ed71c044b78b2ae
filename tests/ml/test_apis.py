"""REST API of model versions: visibility and activation."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from ml.models import ModelVersion
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import ModelVersionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def test_model_versions_visible_and_activated_per_project(world: World) -> None:
    foreign = ModelVersionFactory.create(project=world.other_project)
    listed = world.client("annotator").get("/api/model-versions/").json()["results"]
    assert {m["id"] for m in listed} == {world.model_version.pk, world.shared_model_version.pk}
    assert foreign.pk not in {m["id"] for m in listed}

    previous = ModelVersionFactory.create(project=world.project, is_active=True)
    # Nothing to compare it with: activation needs confirm.
    url = f"/api/model-versions/{world.model_version.pk}/activate/"
    refused = world.client("admin").post(url)
    assert refused.status_code == 400
    assert "share no evaluation figure" in refused.json()["detail"]
    response = world.client("admin").post(url, {"confirm": True}, format="json")
    assert response.status_code == 200
    assert response.json()["is_active"] is True
    previous.refresh_from_db()
    assert previous.is_active is False
    active = world.client("reviewer").get(
        f"/api/model-versions/?project={world.project.pk}&is_active=true"
    )
    assert [m["id"] for m in active.json()["results"]] == [world.model_version.pk]


def test_staff_activate_shared_models(world: World) -> None:
    staff = APIClient()
    staff.force_authenticate(UserFactory.create(username="staff", is_staff=True))
    url = f"/api/model-versions/{world.shared_model_version.pk}/activate/"
    assert staff.post(url, {"confirm": True}, format="json").status_code == 200
    assert ModelVersion.objects.get(pk=world.shared_model_version.pk).is_active
