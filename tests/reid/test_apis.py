"""The re-identification API: who may call it, what it answers, how it refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import JobStatus
from knowledge.models import KbStatus
from reid.apis.base import MAX_MASKS
from reid.models import ReidTarget
from reid.validators import REID_CURVE
from tests.factories import AssignmentFactory, DocumentFactory, JobFactory
from tests.reid.helpers import N_PEOPLE, World, make_kb, make_world, occurrences

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


def _url(document_id: int, what: str = "") -> str:
    return f"/api/documents/{document_id}/reid/{what}"


def _rank(world: World, who: str, body: dict[str, Any], document_id: int | None = None) -> Any:
    return world.client(who).post(
        _url(document_id or world.document.pk, "rank/"), body, format="json"
    )


def test_info_and_rank_for_a_member(world: World) -> None:
    info = world.client("reviewer").get(_url(world.document.pk))
    assert info.status_code == 200
    assert info.json()["target"]["profile_id"] == world.document.meta["target"]
    assert info.json()["models"][0]["name"] == "bm25"

    response = _rank(world, "reviewer", {"masks": [], "k": 10, "top": 5})

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["rank"] == 1 and body["ranks"] == {"bm25": 1}
    assert body["n_candidates"] == N_PEOPLE
    assert body["reidentified"] is True and body["safe"] is False
    assert len(body["top"]) == 5
    assert body["top"][0]["is_target"] is True
    assert set(body["top"][0]) >= {"profile_id", "name", "score", "rank", "is_target", "links"}
    assert body["elapsed_ms"] >= 0


def test_masking_the_name_through_the_api_raises_the_rank(world: World) -> None:
    name = world.document.target_person
    document = DocumentFactory.create(
        project=world.project,
        text=f"{name} spoke first.",
        meta={"target": world.document.meta["target"]},
    )
    masks = [m for part in name.split() for m in occurrences(document.text, part)]
    assert _rank(world, "admin", {"masks": []}, document.pk).json()["rank"] == 1
    assert _rank(world, "admin", {"masks": masks}, document.pk).json()["rank"] > 1


def test_strangers_get_404_and_unassigned_annotators_403(world: World) -> None:
    document_id = world.document.pk
    stranger = world.client("outsider")
    for what in ("rank/", "suggest/"):
        response = stranger.post(_url(document_id, what), {"masks": []}, format="json")
        assert response.status_code == 404, what
    for what in ("", "versions/"):
        assert stranger.get(_url(document_id, what)).status_code == 404, what
    assert _rank(world, "annotator", {"masks": []}).status_code == 403
    AssignmentFactory.create(document=world.document, user=world.users["annotator"])
    assert _rank(world, "annotator", {"masks": []}).status_code == 200
    curve = world.client("outsider").get(f"/api/projects/{world.project.pk}/reid/curve/")
    assert curve.status_code == 404


def test_anonymous_requests_are_refused(world: World) -> None:
    response = APIClient().post(_url(world.document.pk, "rank/"), {"masks": []}, format="json")
    assert response.status_code in (401, 403)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"masks": "0-4"}, "masks"),
        ({"masks": [[4, 2]]}, "masks"),
        ({"masks": [[0, 2, 3]]}, "masks"),
        ({"masks": [["0", 2]]}, "masks"),
        ({"masks": [[True, 2]]}, "masks"),
        ({"masks": [[-1, 2]]}, "masks"),
        ({"masks": [[0, 100_000]]}, "masks"),
        ({"masks": [[0, 1]] * (MAX_MASKS + 1)}, "masks"),
        ({}, "masks"),
        ({"masks": [], "k": 0}, "k"),
        ({"masks": [], "k": 1001}, "k"),
        ({"masks": [], "top": 0}, "top"),
        ({"masks": [], "top": 51}, "top"),
    ],
)
def test_bad_rank_input_is_400_naming_the_field(world: World, body: dict, field: str) -> None:
    response = _rank(world, "reviewer", body)
    assert response.status_code == 400
    assert field in response.json()


def test_409_without_target_or_ready_knowledge_base(world: World) -> None:
    document = DocumentFactory.create(project=world.project, text="Someone was here.", meta={})
    response = _rank(world, "reviewer", {"masks": []}, document.pk)
    assert response.status_code == 409
    assert "no target person" in response.json()["detail"]
    assert world.client("reviewer").get(_url(document.pk)).json()["target"] is None

    world.kb.status = KbStatus.BUILDING
    world.kb.save()
    response = world.client("reviewer").post(
        _url(world.document.pk, "suggest/"), {"masks": []}, format="json"
    )
    assert response.status_code == 409
    assert "no ready knowledge base" in response.json()["detail"]
    versions = world.client("reviewer").get(_url(world.document.pk, "versions/"))
    assert versions.status_code == 409


def test_put_target_chooses_the_person_and_delete_forgets_it(world: World) -> None:
    AssignmentFactory.create(document=world.document, user=world.users["annotator"])
    client = world.client("annotator")
    url = _url(world.document.pk, "target/")

    response = client.put(
        url, {"profile_id": "SP00000011", "knowledge_base": world.kb.pk}, format="json"
    )

    assert response.status_code == 200, response.json()
    assert response.json()["target"]["profile_id"] == "SP00000011"
    assert response.json()["target"]["source"] == "ui"
    row = ReidTarget.objects.get()
    assert row.set_by == world.users["annotator"]

    response = client.delete(url)
    assert response.status_code == 200
    assert response.json()["target"]["source"] == "import"
    assert not ReidTarget.objects.exists()


def test_put_target_refuses_bad_choices_naming_the_field(world: World) -> None:
    client = world.client("admin")
    url = _url(world.document.pk, "target/")
    foreign = make_kb(None, world.kb_path, name="shared but not ready", status=KbStatus.FAILED)
    cases = [
        ({"profile_id": "nobody", "knowledge_base": world.kb.pk}, "profile_id"),
        ({"profile_id": "x" * 201, "knowledge_base": world.kb.pk}, "profile_id"),
        ({"profile_id": "SP00000001", "knowledge_base": 999_999}, "knowledge_base"),
        ({"profile_id": "SP00000001", "knowledge_base": foreign.pk}, "knowledge_base"),
        ({"profile_id": "SP00000001"}, "knowledge_base"),
    ]
    for body, field in cases:
        response = client.put(url, body, format="json")
        assert response.status_code == 400, body
        assert field in response.json(), (body, response.json())
    assert not ReidTarget.objects.exists()


def test_put_target_for_a_stranger_is_404(world: World) -> None:
    response = world.client("outsider").put(
        _url(world.document.pk, "target/"),
        {"profile_id": "SP00000001", "knowledge_base": world.kb.pk},
        format="json",
    )
    assert response.status_code == 404
    assert not ReidTarget.objects.exists()


def test_suggest_and_versions(world: World) -> None:
    client = world.client("reviewer")
    suggestion = client.post(
        _url(world.document.pk, "suggest/"), {"masks": [], "k": 3}, format="json"
    )
    assert suggestion.status_code == 200
    body = suggestion.json()
    assert body["reached"] is True and body["ranks_after"]["bm25"] > 3
    assert body["spans"] and body["spans"][0]["reason"].startswith("reid: rank ")

    versions = client.get(_url(world.document.pk, "versions/") + "?k=3")
    assert versions.status_code == 200
    assert versions.json() == {"versions": [], "k": 3}
    assert client.get(_url(world.document.pk, "versions/") + "?k=0").status_code == 400


def test_curve_404_until_a_curve_job_succeeded(world: World) -> None:
    url = f"/api/projects/{world.project.pk}/reid/curve/"
    client = world.client("annotator")
    assert client.get(url).status_code == 404
    point = {"method": "none", "label": "no masking", "rate": 0.9, "share_masked": 0.0}
    job = JobFactory.create(
        project=world.project,
        kind=REID_CURVE,
        status=JobStatus.SUCCEEDED,
        result={"points": [point]},
    )
    response = client.get(url)
    assert response.status_code == 200
    assert response.json()["job"] == job.pk
    assert response.json()["points"] == [point]
