"""Pages and /api/ endpoints through Django's test client: who may open what, and
what the editor's one-request workspace holds."""

from __future__ import annotations

import pytest

from annotation.models import Role, SetKind, SetStatus
from tests.factories import (
    AnnotationSetFactory,
    AssignmentFactory,
    DocumentFactory,
    MembershipFactory,
    SpanFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

TEXT = "aaaa bbbb cccc dddd"


@pytest.fixture
def world():
    document = DocumentFactory.create(text=TEXT)
    project = document.project
    users = {}
    for name, role in [("ann", Role.ANNOTATOR), ("ann2", Role.ANNOTATOR), ("rev", Role.REVIEWER)]:
        users[name] = UserFactory.create(username=name)
        MembershipFactory.create(project=project, user=users[name], role=role)
    users["outsider"] = UserFactory.create(username="outsider")
    AssignmentFactory.create(document=document, user=users["ann"])
    AssignmentFactory.create(document=document, user=users["ann2"])
    sets = {}
    for name, identifier in [("ann", "DIRECT"), ("ann2", "QUASI")]:
        sets[name] = AnnotationSetFactory.create(
            document=document, annotator=users[name], status=SetStatus.SUBMITTED
        )
        SpanFactory.create(annotation_set=sets[name], start=0, end=4, identifier_type=identifier)
    sets["machine"] = AnnotationSetFactory.create(
        document=document, kind=SetKind.MACHINE, annotator=None, source_name="distant-kb"
    )
    SpanFactory.create(
        annotation_set=sets["machine"],
        start=10,
        end=14,
        attrs={"term": "cccc", "combination": ["cccc", "dddd"], "count": 1},
    )
    return document, users, sets


def _client(client, user):
    client.force_login(user)
    return client


def test_anonymous_users_are_sent_to_login(client, world):
    document, _, _ = world
    for url in (
        "/",
        f"/documents/{document.pk}/annotate/",
        f"/documents/{document.pk}/review/",
        f"/projects/{document.project_id}/agreement/",
        f"/projects/{document.project_id}/admin/",
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.get(f"/api/documents/{document.pk}/workspace/").status_code == 403


@pytest.mark.parametrize(
    ("user", "url", "expected"),
    [
        ("ann", "/documents/{doc}/annotate/", 200),
        ("ann", "/documents/{doc}/review/", 403),
        ("ann", "/projects/{project}/agreement/", 403),
        ("ann", "/projects/{project}/admin/", 403),
        ("rev", "/documents/{doc}/review/", 200),
        ("rev", "/projects/{project}/agreement/", 200),
        ("rev", "/projects/{project}/admin/", 403),
        ("outsider", "/documents/{doc}/annotate/", 404),
        ("outsider", "/projects/{project}/agreement/", 404),
    ],
)
def test_pages_follow_the_roles(client, world, user, url, expected):
    document, users, _ = world
    _client(client, users[user])
    response = client.get(url.format(doc=document.pk, project=document.project_id))
    assert response.status_code == expected


def test_home_lists_the_annotators_own_progress(client, world):
    document, users, _ = world
    page = _client(client, users["ann"]).get("/").content.decode()
    assert f'href="/documents/{document.pk}/annotate/"' in page
    assert 'data-status="submitted"' in page
    assert "press <kbd>n</kbd>" in page


def test_workspace_shows_an_annotator_own_and_machine_sets_only(client, world):
    document, users, _sets = world
    data = _client(client, users["ann"]).get(f"/api/documents/{document.pk}/workspace/").json()
    assert data["text"] == TEXT
    assert data["target_person"] == document.target_person
    by_kind = {(s["kind"], s["mine"]): s for s in data["sets"]}
    assert set(by_kind) == {("human", True), ("machine", False)}
    machine = by_kind[("machine", False)]
    assert machine["spans"][0]["attrs"]["combination"] == ["cccc", "dddd"]
    assert by_kind[("human", True)]["editable"] is True


def test_workspace_shows_every_set_to_reviewers(client, world):
    document, users, _ = world
    data = _client(client, users["rev"]).get(f"/api/documents/{document.pk}/workspace/").json()
    assert sorted(s["name"] for s in data["sets"]) == ["ann", "ann2", "machine:distant-kb"]


def test_reviewer_adopts_and_sees_agreement(client, world):
    document, users, sets = world
    c = _client(client, users["rev"])
    span = sets["ann2"].spans.get()
    response = c.post(
        f"/api/documents/{document.pk}/gold/adopt/",
        {"span_ids": [span.pk], "start": 0, "end": 4},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    gold = response.json()
    assert [(s["start"], s["end"], s["identifier_type"]) for s in gold["spans"]] == [
        (0, 4, "QUASI")
    ]
    agreement = c.get(f"/api/documents/{document.pk}/agreement/").json()
    assert agreement["annotators"] == ["ann", "ann2"]
    assert agreement["disagreements"] == [{"start": 0, "end": 4}]
    # Completing in one action is refused while they disagree.
    refused = c.post(f"/api/documents/{document.pk}/gold/complete/", {}, "application/json")
    assert refused.status_code == 400
    assert "disagree" in refused.json()["detail"]


def test_annotators_may_not_adjudicate_or_see_agreement(client, world):
    document, users, sets = world
    c = _client(client, users["ann"])
    span = sets["ann"].spans.get()
    adopt = c.post(
        f"/api/documents/{document.pk}/gold/adopt/",
        {"span_ids": [span.pk]},
        content_type="application/json",
    )
    assert adopt.status_code == 403
    assert c.get(f"/api/documents/{document.pk}/agreement/").status_code == 403
    assert c.get(f"/api/projects/{document.project_id}/agreement/").status_code == 403


def test_annotator_rejects_a_suggestion(client, world):
    _document, users, sets = world
    c = _client(client, users["ann"])
    suggestion = sets["machine"].spans.get()
    response = c.post(
        f"/api/annotation-sets/{sets['ann'].pk}/rejections/",
        {"span_ids": [suggestion.pk]},
        content_type="application/json",
    )
    assert response.status_code == 200
    assert response.json() == {"rejected_suggestions": [suggestion.pk]}
    # Not in someone else's set.
    other = c.post(
        f"/api/annotation-sets/{sets['ann2'].pk}/rejections/",
        {"span_ids": [suggestion.pk]},
        content_type="application/json",
    )
    assert other.status_code == 403
