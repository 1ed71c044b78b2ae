"""Imported annotator names are normalised (NFKC) and may not pass for a member of the
project: a Cyrillic "аdmin" next to a member "admin" is refused, and the import writes
nothing. Accounts outside the project play no part: a name becomes the project's own
stand-in whether or not an account of that name exists (no enumeration)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.models import AnnotationSet, Document, Invitation, Membership, Project, Role
from annotation.services import document_import
from annotation.usernames import username_look_alike, username_skeleton
from common.errors import DomainError
from tests.factories import MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()
TEXT = "Alice Smith lives in Braga."
CYRILLIC_ADMIN = "\u0430dmin"  # "аdmin": CYRILLIC SMALL LETTER A, then Latin "dmin"


def _tab_file(tmp_path: Path, annotator: str) -> Path:
    mention = {
        "entity_mention_id": "m1",
        "entity_id": "e1",
        "entity_type": "PERSON",
        "identifier_type": "DIRECT",
        "confidential_status": "NOT_CONFIDENTIAL",
        "start_offset": 0,
        "end_offset": 11,
        "span_text": "Alice Smith",
    }
    doc = {"doc_id": "d1", "text": TEXT, "annotations": {annotator: {"entity_mentions": [mention]}}}
    path = tmp_path / "docs.json"
    path.write_text(json.dumps([doc]))
    return path


def test_skeletons_match_look_alikes_only():
    assert CYRILLIC_ADMIN != "admin"
    assert username_skeleton(CYRILLIC_ADMIN) == username_skeleton("admin")
    assert username_look_alike(CYRILLIC_ADMIN, ["bob", "admin"]) == "admin"
    assert username_look_alike("admin", ["admin"]) is None  # the account itself
    assert username_look_alike("annotator1", ["annotator2", "alice"]) is None


def _import_via_api(tmp_path: Path, project: Project, annotator: str) -> Any:
    owner = UserFactory.create()
    MembershipFactory.create(project=project, user=owner, role=Role.ADMIN)
    client = APIClient()
    client.force_authenticate(owner)
    upload = SimpleUploadedFile("docs.json", _tab_file(tmp_path, annotator).read_bytes())
    return client.post(
        f"/api/projects/{project.pk}/import/",
        {"file": upload, "format": "tab", "sync": "true"},
        format="multipart",
    ), client


def test_a_cyrillic_look_alike_of_a_member_is_refused(tmp_path: Path):
    project = ProjectFactory.create()
    MembershipFactory.create(project=project, user=UserFactory.create(username="admin"))
    users_before = User.objects.count()

    with pytest.raises(DomainError, match="looks like 'admin', a member of the project"):
        document_import(project=project, path=_tab_file(tmp_path, CYRILLIC_ADMIN), fmt="tab")

    assert User.objects.count() == users_before
    assert not Document.objects.filter(project=project).exists()


def test_a_look_alike_of_an_account_outside_the_project_is_an_ordinary_stand_in(tmp_path: Path):
    """Refusing it would tell the importer that "admin" exists; the stand-in's own name
    (``аdmin@import.<project>``) keeps it from passing for the account."""
    UserFactory.create(username="admin")
    project = ProjectFactory.create()

    summary = document_import(project=project, path=_tab_file(tmp_path, CYRILLIC_ADMIN), fmt="tab")

    assert summary.users_created == [f"{CYRILLIC_ADMIN}@import.{project.pk}"]


def test_an_import_normalises_annotator_names(tmp_path: Path):
    project = ProjectFactory.create()
    fullwidth = "\uff41nnotator7"  # "ａnnotator7": FULLWIDTH LATIN SMALL LETTER A

    summary = document_import(project=project, path=_tab_file(tmp_path, fullwidth), fmt="tab")

    assert summary.users_created == [f"annotator7@import.{project.pk}"]
    annotation_set = AnnotationSet.objects.get(document__project=project)
    assert annotation_set.annotator is not None
    assert annotation_set.annotator.username == f"annotator7@import.{project.pk}"


def test_the_import_api_answers_a_look_alike_of_a_member_with_400(tmp_path: Path):
    project = ProjectFactory.create()
    MembershipFactory.create(project=project, user=UserFactory.create(username="admin"))
    response, _ = _import_via_api(tmp_path, project, CYRILLIC_ADMIN)
    assert response.status_code == 400, response.content
    assert "looks like 'admin', a member of the project" in response.json()["detail"]
    assert not Document.objects.filter(project=project).exists()


def _shape(value: Any, name: str, project: Project) -> Any:
    """``value`` (JSON) with the annotator's name and the project id made generic."""
    text = json.dumps(value, sort_keys=True)
    return json.loads(
        text.replace(f"{name}@import.{project.pk}", "NAME@import.PROJECT").replace(name, "NAME")
    )


def test_an_import_does_not_reveal_whether_an_annotator_name_is_an_account(tmp_path: Path):
    """A file naming an existing account that is not a member ("victim") and one naming
    nobody ("nobody") are answered alike: the same response, the same job result, the
    same members; the account gains no access, no membership and no invitation."""
    victim = UserFactory.create(username="victim")
    # A deactivated account may not be taken over either (it could be reactivated).
    UserFactory.create(username="dormant", is_active=False)
    outcomes = []
    for name in ("victim", "dormant", "nobody"):
        project = ProjectFactory.create()
        (tmp_path / name).mkdir()
        response, client = _import_via_api(tmp_path / name, project, name)
        assert response.status_code == 201, response.content
        members = client.get(f"/api/projects/{project.pk}/members/?limit=100").json()
        owners = [s.annotator for s in AnnotationSet.objects.filter(document__project=project)]
        sets = [(u.username, u.is_active, u.has_usable_password()) for u in owners if u]
        # The job body returns this summary as the job's result.
        again = _tab_file(tmp_path / name, name)
        other = ProjectFactory.create(name=f"{name} again")
        result = document_import(project=other, path=again, fmt="tab").as_dict()
        outcomes.append(
            {
                "response": _shape(response.json(), name, project),
                "members": _shape(
                    sorted(
                        (m["user"]["username"], m["user"]["is_active"], m["role"])
                        for m in members["results"]
                        if m["role"] == Role.ANNOTATOR
                    ),
                    name,
                    project,
                ),
                "sets": _shape(sets, name, project),
                "result": _shape(result, name, other),
            }
        )
    assert outcomes[0] == outcomes[1] == outcomes[2], outcomes
    assert outcomes[0]["response"]["users_created"] == ["NAME@import.PROJECT"]
    assert outcomes[0]["members"] == [["NAME@import.PROJECT", False, Role.ANNOTATOR]]

    assert not Membership.objects.filter(user__username__in=["victim", "dormant"]).exists()
    assert not Invitation.objects.filter(user__username__in=["victim", "dormant"]).exists()
    assert not AnnotationSet.objects.filter(annotator__username__in=["victim", "dormant"]).exists()
    victim_client = APIClient()
    victim_client.force_authenticate(victim)
    for project in Project.objects.all():
        assert victim_client.get(f"/api/projects/{project.pk}/").status_code == 404


def test_a_member_named_in_the_file_is_bound_to_their_account(tmp_path: Path):
    """An account that is a member (say, it accepted an invitation) owns its imported set."""
    project = ProjectFactory.create()
    member = UserFactory.create(username="carol")
    MembershipFactory.create(project=project, user=member)

    summary = document_import(project=project, path=_tab_file(tmp_path, "carol"), fmt="tab")

    assert summary.users_created == []
    assert AnnotationSet.objects.get(document__project=project).annotator == member
