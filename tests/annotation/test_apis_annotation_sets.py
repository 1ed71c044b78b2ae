"""Annotation sets and spans through the API: visibility before and after gold
publication, optimistic concurrency (409 on stale writes) and the audit trail."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from annotation.models import SetStatus, Span, SpanAction, SpanEvent
from tests.annotation.test_permissions_matrix import World, build_world


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def set_ids(response: Any) -> set[int]:
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()["results"]}


def test_annotator_sees_own_and_machine_sets_until_gold_is_published(world: World) -> None:
    url = f"/api/documents/{world.document.pk}/annotation-sets/"
    annotator = world.client("annotator")
    assert set_ids(annotator.get(url)) == {world.own_set.pk, world.machine_set.pk}
    every_set = {world.own_set.pk, world.other_set.pk, world.machine_set.pk, world.gold_set.pk}
    assert set_ids(world.client("reviewer").get(url)) == every_set

    other_set_url = f"/api/annotation-sets/{world.other_set.pk}/"
    assert annotator.get(other_set_url).status_code == 403

    published = world.client("reviewer").post(
        f"/api/documents/{world.document.pk}/gold/publish/", {"force": True}, format="json"
    )
    assert published.status_code == 200, published.content
    assert published.json()["published_at"] is not None

    assert set_ids(annotator.get(url)) == every_set
    response = annotator.get(other_set_url)
    assert response.status_code == 200
    assert [s["id"] for s in response.json()["spans"]] == [world.other_span.pk]
    assert response.json()["editable"] is False


def test_set_detail_carries_spans_and_editability(world: World) -> None:
    response = world.client("annotator").get(f"/api/annotation-sets/{world.own_set.pk}/")
    body = response.json()
    assert body["annotator"] == "annotator-user"
    assert body["editable"] is True
    assert body["spans"][0]["text"] == "Galip Yalman"
    assert body["spans"][0]["version"] == 1
    machine = world.client("annotator").get(f"/api/annotation-sets/{world.machine_set.pk}/")
    assert machine.json()["editable"] is False


def test_my_set_is_created_once_and_moves_the_document_along(world: World) -> None:
    world.own_set.delete()
    client = world.client("annotator")
    first = client.post(f"/api/documents/{world.document.pk}/annotation-sets/mine/")
    second = client.post(f"/api/documents/{world.document.pk}/annotation-sets/mine/")
    assert first.status_code == second.status_code == 200
    assert first.json()["id"] == second.json()["id"]
    assert first.json()["spans"] == []
    world.document.refresh_from_db()
    assert world.document.status == "in_progress"


def test_submit_then_submit_again_is_a_domain_error(world: World) -> None:
    client = world.client("annotator")
    url = f"/api/annotation-sets/{world.own_set.pk}/submit/"
    assert client.post(url).json()["status"] == SetStatus.SUBMITTED
    again = client.post(url)
    assert again.status_code == 400
    assert "already submitted" in again.json()["detail"]


def test_reviewed_set_cannot_be_edited_after_publication(world: World) -> None:
    # Publication closes the sets handed in (one still in progress stays open).
    world.own_set.status = SetStatus.SUBMITTED
    world.own_set.save()
    published = world.client("admin").post(
        f"/api/documents/{world.document.pk}/gold/publish/", {"force": True}, format="json"
    )
    assert published.status_code == 200
    response = world.client("annotator").patch(
        f"/api/spans/{world.own_span.pk}/update/",
        {"version": 1, "identifier_type": "QUASI"},
        format="json",
    )
    assert response.status_code == 400
    assert "reviewed" in response.json()["detail"]
    world.own_span.refresh_from_db()
    assert world.own_span.identifier_type == "DIRECT"


def test_span_create_records_an_event_and_checks_offsets(world: World) -> None:
    client = world.client("annotator")
    url = f"/api/annotation-sets/{world.own_set.pk}/spans/create/"
    response = client.post(url, {"start": 62, "end": 68, "entity_type": "LOC"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["text"], body["identifier_type"], body["version"]) == ("Ankara", "QUASI", 1)
    event = SpanEvent.objects.get(span_key=body["id"])
    assert event.after is not None
    assert (event.action, event.user, event.after["text"]) == (
        SpanAction.CREATE,
        world.users["annotator"],
        "Ankara",
    )

    past_the_end = client.post(url, {"start": 60, "end": 9999, "entity_type": "LOC"}, format="json")
    assert past_the_end.status_code == 400
    assert "end" in past_the_end.json()
    unknown_type = client.post(url, {"start": 62, "end": 68, "entity_type": "CITY"}, format="json")
    assert unknown_type.status_code == 400
    assert Span.objects.filter(annotation_set=world.own_set).count() == 2


def test_update_needs_a_version_and_a_change(world: World) -> None:
    client = world.client("annotator")
    url = f"/api/spans/{world.own_span.pk}/update/"
    no_version = client.patch(url, {"identifier_type": "QUASI"}, format="json")
    assert no_version.status_code == 400
    assert "version" in no_version.json()
    nothing = client.patch(url, {"version": 1}, format="json")
    assert nothing.status_code == 400
    delete_without_version = client.delete(f"/api/spans/{world.own_span.pk}/delete/")
    assert delete_without_version.status_code == 400
    assert not SpanEvent.objects.filter(span_key=world.own_span.pk).exists()


@pytest.mark.parametrize(
    ("first_caller", "second_caller", "span_attr"),
    [
        ("annotator", "annotator", "own_span"),  # one annotator, two browser tabs
        ("reviewer", "admin", "gold_span"),  # two adjudicators on the gold set
    ],
)
def test_stale_patch_gets_409_with_the_current_state(
    world: World, first_caller: str, second_caller: str, span_attr: str
) -> None:
    span = getattr(world, span_attr)
    first, second = world.client(first_caller), world.client(second_caller)
    # Both read version 1.
    read_first = first.get(f"/api/spans/{span.pk}/").json()
    read_second = second.get(f"/api/spans/{span.pk}/").json()
    assert read_first["version"] == read_second["version"] == 1
    url = f"/api/spans/{span.pk}/update/"

    won = first.patch(
        url, {"version": 1, "identifier_type": "QUASI", "note": "first"}, format="json"
    )
    assert won.status_code == 200, won.content
    assert won.json()["version"] == 2

    lost = second.patch(
        url, {"version": 1, "identifier_type": "NO_MASK", "note": "second"}, format="json"
    )
    assert lost.status_code == 409, lost.content
    current = lost.json()["current"]
    assert current["id"] == span.pk
    assert (current["version"], current["identifier_type"], current["note"]) == (
        2,
        "QUASI",
        "first",
    )

    span.refresh_from_db()
    assert (span.version, span.identifier_type, span.note) == (2, "QUASI", "first")
    updates = SpanEvent.objects.filter(span_key=span.pk, action=SpanAction.UPDATE)
    assert updates.count() == 1
    assert updates.get().after == current

    # With the current version in hand the second writer can apply the change.
    retried = second.patch(
        url, {"version": 2, "identifier_type": "NO_MASK", "note": "second"}, format="json"
    )
    assert retried.status_code == 200
    assert retried.json()["version"] == 3


def test_stale_delete_gets_409_and_keeps_the_span(world: World) -> None:
    client = world.client("annotator")
    client.patch(
        f"/api/spans/{world.own_span.pk}/update/", {"version": 1, "note": "x"}, format="json"
    )
    stale = client.delete(f"/api/spans/{world.own_span.pk}/delete/?version=1")
    assert stale.status_code == 409
    assert stale.json()["current"]["version"] == 2
    assert Span.objects.filter(pk=world.own_span.pk).exists()
    deleted = client.delete(f"/api/spans/{world.own_span.pk}/delete/?version=2")
    assert deleted.status_code == 204
    assert not Span.objects.filter(pk=world.own_span.pk).exists()


def test_audit_trail_survives_deletion(world: World) -> None:
    client = world.client("annotator")
    created = client.post(
        f"/api/annotation-sets/{world.own_set.pk}/spans/create/",
        {"start": 62, "end": 68, "entity_type": "LOC"},
        format="json",
    ).json()
    client.patch(
        f"/api/spans/{created['id']}/update/",
        {"version": 1, "identifier_type": "DIRECT"},
        format="json",
    )
    client.delete(f"/api/spans/{created['id']}/delete/?version=2")

    trail = client.get(f"/api/spans/{created['id']}/events/")
    assert trail.status_code == 200
    events = trail.json()["results"]
    assert [e["action"] for e in events] == ["create", "update", "delete"]
    assert events[1]["before"]["identifier_type"] == "QUASI"
    assert events[1]["after"]["identifier_type"] == "DIRECT"
    assert events[2]["after"] is None and events[2]["span"] is None
    assert {e["user"] for e in events} == {"annotator-user"}

    # The other annotator may not read the trail of a set they cannot see.
    assert world.client("other").get(f"/api/spans/{created['id']}/events/").status_code == 403
    set_trail = world.client("reviewer").get(
        f"/api/annotation-sets/{world.own_set.pk}/events/?span={created['id']}"
    )
    assert [e["action"] for e in set_trail.json()["results"]] == ["create", "update", "delete"]


def test_entity_decision_changes_every_mention(world: World) -> None:
    client = world.client("annotator")
    client.post(
        f"/api/annotation-sets/{world.own_set.pk}/spans/create/",
        {"start": 18, "end": 23, "entity_type": "PERSON", "entity_id": "e-person"},
        format="json",
    )
    response = client.post(
        f"/api/annotation-sets/{world.own_set.pk}/entity-decision/",
        {"entity_id": "e-person", "identifier_type": "NO_MASK"},
        format="json",
    )
    assert response.json() == {"updated": 2}
    spans = Span.objects.filter(annotation_set=world.own_set)
    assert set(spans.values_list("identifier_type", flat=True)) == {"NO_MASK"}
    assert set(spans.values_list("version", flat=True)) == {2}
    # The other annotator's span of the same entity is untouched.
    world.other_span.refresh_from_db()
    assert world.other_span.identifier_type == "DIRECT"


@pytest.mark.django_db(transaction=True)
def test_concurrent_patches_one_wins_one_conflicts() -> None:
    """Two requests with version 1 at the same moment: the row lock orders them."""
    world = build_world()
    url = f"/api/spans/{world.gold_span.pk}/update/"
    barrier = threading.Barrier(2)
    statuses: dict[str, int] = {}

    def patch(caller: str) -> None:
        client: APIClient = world.client(caller)
        try:
            barrier.wait(timeout=10)
            response = client.patch(url, {"version": 1, "note": caller}, format="json")
            statuses[caller] = response.status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=patch, args=(c,)) for c in ("reviewer", "admin")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(statuses.values()) == [200, 409]
    winner = next(c for c, code in statuses.items() if code == 200)
    span = Span.objects.get(pk=world.gold_span.pk)
    assert (span.version, span.note) == (2, winner)
    assert SpanEvent.objects.filter(span_key=span.pk, action=SpanAction.UPDATE).count() == 1
