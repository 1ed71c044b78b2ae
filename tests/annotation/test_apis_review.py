"""The review workflow through the API: who may own an annotator set, which sets count,
the undecided regions and publication, adopting a whole set, and what annotators see
after publication."""

from __future__ import annotations

from typing import Any

import pytest

from annotation.models import AnnotationSet, SetKind, SetStatus
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import AnnotationSetFactory, AssignmentFactory, SpanFactory
from tests.frontend.sample import ANKARA


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def _mine(world: World, caller: str, document: Any = None) -> Any:
    document = document or world.document
    return world.client(caller).post(f"/api/documents/{document.pk}/annotation-sets/mine/")


def test_reviewers_and_admins_get_no_annotator_set_unless_assigned(world: World) -> None:
    for caller in ("reviewer", "admin"):
        refused = _mine(world, caller)
        assert refused.status_code == 403
        assert "review page" in refused.json()["detail"]
    assert not AnnotationSet.objects.filter(
        annotator__in=[world.users["reviewer"], world.users["admin"]]
    ).exists()
    # An admin who is also an assigned annotator of the document annotates as before.
    AssignmentFactory.create(document=world.document, user=world.users["admin"])
    created = _mine(world, "admin")
    assert created.status_code == 200
    assert created.json()["annotator"] == "admin-user"
    # A reviewer who already owns a set there (e.g. imported) gets it back.
    existing = AnnotationSetFactory.create(
        document=world.unassigned, annotator=world.users["reviewer"]
    )
    again = _mine(world, "reviewer", world.unassigned)
    assert again.status_code == 200
    assert again.json()["id"] == existing.pk


def test_sets_in_progress_do_not_count_in_agreement(world: World) -> None:
    # Both annotators' sets are in progress: nothing counts yet.
    url = f"/api/documents/{world.document.pk}/agreement/"
    reviewer = world.client("reviewer")
    assert reviewer.get(url).json()["annotators"] == []
    shown = reviewer.get(f"{url}?in_progress=true").json()
    assert shown["annotators"] == ["annotator-user", "other-user"]
    SpanFactory.create(
        annotation_set=world.other_set, start=ANKARA[0], end=ANKARA[1], entity_type="LOC"
    )
    assert reviewer.get(f"{url}?in_progress=true").json()["disagreements"] != []
    assert reviewer.get(url).json()["disagreements"] == []
    world.own_set.status = SetStatus.SUBMITTED
    world.own_set.save()
    project = reviewer.get(f"/api/projects/{world.project.pk}/agreement/").json()
    assert project["annotators"] == ["annotator-user"]


def test_publish_with_undecided_regions_answers_400_with_the_count(world: World) -> None:
    for annotation_set in (world.own_set, world.other_set):
        annotation_set.status = SetStatus.SUBMITTED
        annotation_set.save()
    SpanFactory.create(
        annotation_set=world.other_set, start=ANKARA[0], end=ANKARA[1], entity_type="LOC"
    )
    reviewer = world.client("reviewer")
    base = f"/api/documents/{world.document.pk}/gold"
    regions = reviewer.get(f"{base}/regions/").json()
    assert regions == {"total": 2, "unresolved": [{"start": ANKARA[0], "end": ANKARA[1]}]}
    refused = reviewer.post(f"{base}/publish/", {}, format="json")
    assert refused.status_code == 400
    assert refused.json()["unresolved"] == 1
    assert refused.json()["total"] == 2
    world.gold_set.refresh_from_db()
    assert world.gold_set.published_at is None
    forced = reviewer.post(f"{base}/publish/", {"force": True}, format="json")
    assert forced.status_code == 200
    assert forced.json()["published_at"] is not None


def test_adopt_all_from_one_set_in_one_request(world: World) -> None:
    SpanFactory.create(
        annotation_set=world.other_set, start=ANKARA[0], end=ANKARA[1], entity_type="LOC"
    )
    response = world.client("reviewer").post(
        f"/api/documents/{world.document.pk}/gold/adopt-set/",
        {"annotation_set_id": world.other_set.pk},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert [(s["start"], s["entity_type"]) for s in response.json()["spans"]] == [
        (18, "PERSON"),
        (ANKARA[0], "LOC"),
    ]
    foreign = AnnotationSetFactory.create(annotator=world.users["other"])
    refused = world.client("reviewer").post(
        f"/api/documents/{world.document.pk}/gold/adopt-set/",
        {"annotation_set_id": foreign.pk},
        format="json",
    )
    assert refused.status_code == 404


def test_annotator_workspace_holds_gold_and_other_sets_only_after_publication(
    world: World,
) -> None:
    url = f"/api/documents/{world.document.pk}/workspace/"
    annotator = world.client("annotator")

    def kinds() -> list[tuple[str, bool]]:
        return sorted((s["kind"], s["mine"]) for s in annotator.get(url).json()["sets"])

    assert kinds() == [("human", True), ("machine", False)]
    world.client("reviewer").post(
        f"/api/documents/{world.document.pk}/gold/publish/", {"force": True}, format="json"
    )
    assert kinds() == [("gold", False), ("human", False), ("human", True), ("machine", False)]
    sets = annotator.get(url).json()["sets"]
    assert not any(s["editable"] for s in sets if s["kind"] == SetKind.GOLD or not s["mine"])


def test_publish_warns_about_annotators_still_marking(world: World) -> None:
    # The annotator's set is still in progress with a span: the reviewer is told who,
    # and publishing with force leaves that set open.
    world.other_set.status = SetStatus.SUBMITTED
    world.other_set.save()
    reviewer = world.client("reviewer")
    base = f"/api/documents/{world.document.pk}/gold"
    refused = reviewer.post(f"{base}/publish/", {}, format="json")
    assert refused.status_code == 400
    body = refused.json()
    assert body["in_progress"] == [
        {"annotation_set": world.own_set.pk, "annotator": "annotator-user", "spans": 1}
    ]
    assert "annotator-user (1 span(s))" in body["detail"]
    assert reviewer.post(f"{base}/publish/", {"force": True}, format="json").status_code == 200
    world.own_set.refresh_from_db()
    world.other_set.refresh_from_db()
    assert (world.own_set.status, world.other_set.status) == (
        SetStatus.IN_PROGRESS,
        SetStatus.REVIEWED,
    )
