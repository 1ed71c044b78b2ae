"""Risk API: who may turn the dial and see the curve, bounded inputs, and the answers."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotation.models import AnnotationSet, Role
from risk.services import risk_assess_documents
from tests.factories import AssignmentFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

ROLES = ("annotator", "reviewer", "admin")


@pytest.fixture
def world(risk_project) -> dict[str, Any]:
    project, documents = risk_project
    users = {role: UserFactory.create(username=f"risk-{role}") for role in ROLES}
    users["outsider"] = UserFactory.create(username="risk-outsider")
    users["unassigned"] = UserFactory.create(username="risk-unassigned")
    for role in ROLES:
        MembershipFactory.create(project=project, user=users[role], role=role)
    MembershipFactory.create(project=project, user=users["unassigned"], role=Role.ANNOTATOR)
    AssignmentFactory.create(document=documents[0], user=users["annotator"])
    return {"project": project, "documents": documents, "users": users}


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _assess(project: Any) -> None:
    risk_assess_documents(
        project=project, document_ids=None, settings={"measures": ["lm", "linkage"]}
    )


def _solve_url(document: Any) -> str:
    return f"/api/documents/{document.pk}/risk/solve/"


def test_solve_without_assessment_answers_409(world):
    response = _client(world["users"]["admin"]).post(_solve_url(world["documents"][0]), {})
    assert response.status_code == 409
    assert response.json() == {"detail": "no risk assessment yet: run the risk job"}


@pytest.mark.parametrize(
    ("caller", "expected"),
    [("outsider", 404), ("unassigned", 403), ("annotator", 200), ("reviewer", 200), ("admin", 200)],
)
def test_who_may_turn_the_dial(world, caller, expected):
    _assess(world["project"])
    response = _client(world["users"][caller]).post(
        _solve_url(world["documents"][0]), {"threshold": 5.0}, format="json"
    )
    assert response.status_code == expected, response.content


def test_dial_answers_masks_with_reasons_and_writes_nothing(world):
    _assess(world["project"])
    document = world["documents"][0]
    client = _client(world["users"]["annotator"])
    sets_before = AnnotationSet.history.count()
    strict = client.post(_solve_url(document), {"threshold": 3.0}, format="json").json()
    loose = client.post(
        _solve_url(document), {"threshold": 40.0, "measures": ["lm"]}, format="json"
    ).json()
    assert AnnotationSet.history.count() == sets_before
    assert strict["settings"]["threshold"] == 3.0
    assert loose["settings"]["measures"] == ["lm"]
    assert set(strict) == {"masks", "share_masked", "risky", "solve_ms", "settings"}
    assert 0 < loose["share_masked"] < strict["share_masked"] <= 1
    assert strict["risky"] > loose["risky"]
    for mask in strict["masks"]:
        assert document.text[mask["start"] : mask["end"]]
        assert mask["entity"] and mask["label"]
        assert mask["reasons"], mask
        assert {"measure", "text", "score"} <= set(mask["reasons"][0])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"threshold": -1}, "threshold"),
        ({"threshold": 1000}, "threshold"),
        ({"k": 0}, "k"),
        ({"k": 2_000_000}, "k"),
        ({"max_arity": 5}, "max_arity"),
        ({"measures": ["web-search"]}, "measures"),
        ({"measures": []}, "measures"),
    ],
)
def test_dial_inputs_are_bounded(world, body, field):
    _assess(world["project"])
    response = _client(world["users"]["admin"]).post(
        _solve_url(world["documents"][0]), body, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()


@pytest.mark.parametrize(
    ("caller", "expected"),
    [("outsider", 404), ("annotator", 403), ("reviewer", 200), ("admin", 200)],
)
def test_curve_is_for_reviewers_and_admins(world, caller, expected):
    _assess(world["project"])
    url = f"/api/projects/{world['project'].pk}/risk/curve/?thresholds=2,8,40"
    response = _client(world["users"][caller]).get(url)
    assert response.status_code == expected, response.content
    if expected == 200:
        body = response.json()
        assert body["documents"] == 2
        assert [p["threshold"] for p in body["points"]] == [2.0, 8.0, 40.0]
        shares = [p["share_masked"] for p in body["points"]]
        assert shares == sorted(shares, reverse=True) and shares[0] > shares[-1]


@pytest.mark.parametrize("thresholds", ["", "a,b", "-3", ",".join(["5"] * 41), "1,500"])
def test_curve_thresholds_are_bounded(world, thresholds):
    url = f"/api/projects/{world['project'].pk}/risk/curve/?thresholds={thresholds}"
    response = _client(world["users"]["admin"]).get(url)
    assert response.status_code == 400
    assert "thresholds" in response.json()
