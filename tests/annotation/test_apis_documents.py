"""Documents, the annotator's queue, assignments and exports through the API."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from annotation.models import Assignment, Membership, Role
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import AnnotationSetFactory, DocumentFactory, UserFactory


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def external_ids(response: Any) -> list[str]:
    assert response.status_code == 200, response.content
    return [d["external_id"] for d in response.json()["results"]]


def test_document_list_follows_visibility(world: World) -> None:
    url = f"/api/projects/{world.project.pk}/documents/"
    assert external_ids(world.client("annotator").get(url)) == ["assigned"]
    assert external_ids(world.client("reviewer").get(url)) == ["assigned", "unassigned"]
    assert external_ids(world.client("admin").get(url + "?split=dev")) == []
    assert "text" not in world.client("admin").get(url).json()["results"][0]


def test_document_detail_and_metadata_update(world: World) -> None:
    detail = world.client("annotator").get(f"/api/documents/{world.document.pk}/").json()
    assert detail["text"].startswith("The applicant")
    assert (detail["target_person"], detail["status"], detail["split"]) == (
        "Galip Yalman",
        "new",
        "none",
    )
    response = world.client("admin").patch(
        f"/api/documents/{world.document.pk}/update/",
        {"meta": {"court": "ECHR"}, "split": "test", "target_person": "G. Yalman", "text": "x"},
        format="json",
    )
    assert response.status_code == 200, response.content
    world.document.refresh_from_db()
    assert world.document.meta == {"court": "ECHR"}
    assert (world.document.split, world.document.target_person) == ("test", "G. Yalman")
    assert world.document.text.startswith("The applicant")  # text is not an API field


def test_queue_lists_assigned_documents_of_current_projects(world: World) -> None:
    body = world.client("annotator").get("/api/me/queue/").json()
    assert [(d["external_id"], d["has_own_set"]) for d in body["results"]] == [("assigned", True)]
    Membership.objects.filter(user=world.users["annotator"]).delete()
    # The assignment remains, but the project is no longer the annotator's.
    assert world.client("annotator").get("/api/me/queue/").json()["count"] == 0


def test_assignments_round_robin_with_overlap(world: World) -> None:
    documents = [DocumentFactory.create(project=world.project, position=10 + i) for i in range(4)]
    third = UserFactory.create(username="third")
    Membership.objects.create(project=world.project, user=third, role=Role.ANNOTATOR)
    annotators = [world.users["annotator"], world.users["other"], third]
    response = world.client("admin").post(
        f"/api/projects/{world.project.pk}/assignments/create/",
        {
            "document_ids": [d.pk for d in documents],
            "annotator_ids": [u.pk for u in annotators],
            "overlap": 2,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert len(response.json()) == 8
    created = Assignment.objects.filter(document__in=documents)
    per_document = Counter(created.values_list("document_id", flat=True))
    assert set(per_document.values()) == {2}  # two distinct annotators each
    per_annotator = Counter(created.values_list("user_id", flat=True))
    assert sorted(per_annotator.values()) == [2, 3, 3]  # even load


def test_assignments_reject_bad_input(world: World) -> None:
    admin = world.client("admin")
    url = f"/api/projects/{world.project.pk}/assignments/create/"
    foreign_document = DocumentFactory.create(project=world.other_project)
    cases = [
        {
            "document_ids": [world.unassigned.pk],
            "annotator_ids": [world.users["other"].pk],
            "overlap": 2,
        },
        {"document_ids": [foreign_document.pk], "annotator_ids": [world.users["other"].pk]},
        {"document_ids": [world.unassigned.pk], "annotator_ids": [world.users["outsider"].pk]},
        {"document_ids": [], "annotator_ids": [world.users["other"].pk]},
    ]
    for data in cases:
        assert admin.post(url, data, format="json").status_code == 400, data
    assert not Assignment.objects.filter(document__in=[world.unassigned, foreign_document]).exists()


def test_export_tab_masks_and_text(world: World) -> None:
    reviewer = world.client("reviewer")
    base = f"/api/projects/{world.project.pk}/export/"

    tab = reviewer.get(base + "?format=tab&include_gold=true")
    assert tab.status_code == 200
    assert tab["Content-Disposition"].startswith("attachment")
    documents = json.loads(tab.getvalue())
    assert [d["doc_id"] for d in documents] == ["assigned", "unassigned"]
    assert set(documents[0]["annotations"]) == {"annotator-user", "other-user", "gold"}

    masks = reviewer.get(base + "?format=masks&source=gold")
    assert masks.status_code == 200
    assert masks.json() == {"assigned": [[18, 30]], "unassigned": []}

    # A named source some document has no set of: refused whole, never a clear text.
    refused = reviewer.get(base + "?format=text&source=annotator:other-user&style=mask")
    assert refused.status_code == 400
    assert "'unassigned' has no 'annotator:other-user' set" in refused.json()["detail"]
    AnnotationSetFactory.create(document=world.unassigned, annotator=world.users["other"])
    text = reviewer.get(base + "?format=text&source=annotator:other-user&style=mask")
    released = json.loads(text.getvalue())
    assert released[0]["text"].startswith("The applicant, Mr [MASK], was born")

    assert reviewer.get(base + "?format=csv").status_code == 400
    assert reviewer.get(base + "?format=masks&source=somebody").status_code == 400


def release(world: World, caller: str, document: Any, **body: Any) -> Any:
    return world.client(caller).post(f"/api/documents/{document.pk}/release/", body, format="json")


def span(text: str, word: str, entity_type: str, identifier_type: str) -> dict[str, Any]:
    start = text.index(word)
    return {
        "start": start,
        "end": start + len(word),
        "entity_type": entity_type,
        "identifier_type": identifier_type,
    }


def test_release_masks_direct_and_quasi_spans_and_keeps_no_mask(world: World) -> None:
    text = world.document.text
    spans = [
        span(text, "Ankara", "LOC", "QUASI"),
        span(text, "Galip Yalman", "PERSON", "DIRECT"),
        span(text, "1945", "DATETIME", "NO_MASK"),
        span(text, "Yalman", "MISC", "QUASI"),  # overlaps: the region keeps PERSON
    ]
    response = release(world, "annotator", world.document, spans=spans)
    assert response.status_code == 200, response.content
    body = response.json()
    assert {key: body[key] for key in ("text", "style")} == {
        "text": "The applicant, Mr [PERSON], was born in 1945 and lives in [LOC]. "
        "He lodged application no. 36110/97 with the Court on 12 March 1997.",
        "style": "type",
    }
    stars = release(world, "reviewer", world.document, spans=spans, style="stars").json()
    assert stars["text"].startswith("The applicant, Mr ***, was born in 1945 and lives in ***.")
    assert release(world, "admin", world.document, spans=[]).json()["text"] == text


def test_release_counts_code_points(world: World) -> None:
    document = DocumentFactory.create(project=world.project, text="😀 Ana Lobo, 😀 Porto")
    body = [span(document.text, "Porto", "LOC", "QUASI")]
    assert body[0]["start"] == 14
    response = release(world, "admin", document, spans=body, style="mask")
    assert response.json()["text"] == "😀 Ana Lobo, 😀 [MASK]"


def test_release_refuses_bad_offsets_and_too_many_spans(world: World, settings: Any) -> None:
    length = len(world.document.text)
    outside = {"start": 5, "end": length + 1, "entity_type": "LOC", "identifier_type": "QUASI"}
    first = span(world.document.text, "Ankara", "LOC", "QUASI")
    response = release(world, "admin", world.document, spans=[first, outside])
    assert response.status_code == 400
    assert response.json()["detail"] == (
        f"span 1 (5..{length + 1}) is not within the document's {length} characters"
    )
    backwards = {**first, "start": first["end"], "end": first["start"]}
    assert release(world, "admin", world.document, spans=[backwards]).status_code == 400
    unknown = {**first, "identifier_type": "MAYBE"}
    assert release(world, "admin", world.document, spans=[unknown]).status_code == 400
    # Django's own body limit (2.5 MB) would refuse this many spans first.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024
    too_many = release(world, "admin", world.document, spans=[first] * 50_001)
    assert too_many.status_code == 400
    assert "spans" in too_many.json()


def test_inactive_accounts_are_never_assigned(world: World) -> None:
    """TAB annotators come with an import as inactive members: the members API says so,
    and assignment refuses them (the admin page does not offer them)."""
    imported = UserFactory.create(username="annotator7", is_active=False)
    Membership.objects.create(project=world.project, user=imported, role=Role.ANNOTATOR)
    admin = world.client("admin")
    members = admin.get(f"/api/projects/{world.project.pk}/members/?limit=100").json()["results"]
    activity = {m["user"]["username"]: m["user"]["is_active"] for m in members}
    assert activity["annotator7"] is False and activity["annotator-user"] is True

    response = admin.post(
        f"/api/projects/{world.project.pk}/assignments/create/",
        {
            "document_ids": [world.unassigned.pk],
            "annotator_ids": [world.users["annotator"].pk, imported.pk],
            "overlap": 1,
        },
        format="json",
    )
    assert response.status_code == 400
    assert (
        "inactive accounts cannot be assigned documents: ['annotator7']"
        in response.json()["detail"]
    )
    assert not Assignment.objects.filter(document=world.unassigned).exists()


def test_masks_export_is_a_file_to_download(world: World) -> None:
    masks = world.client("reviewer").get(
        f"/api/projects/{world.project.pk}/export/?format=masks&source=gold"
    )
    assert masks["Content-Disposition"] == (
        f'attachment; filename="project-{world.project.pk}-masks.json"'
    )
