"""Imported annotator names are normalised (NFKC) and may not pass for an existing
account: a Cyrillic "аdmin" next to "admin" is refused, and the import writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from annotation.models import AnnotationSet, Document
from annotation.services import document_import
from annotation.usernames import username_look_alike, username_skeleton
from common.errors import DomainError
from tests.factories import ProjectFactory, UserFactory

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


def test_an_import_refuses_a_cyrillic_look_alike_of_an_existing_username(tmp_path: Path):
    UserFactory.create(username="admin")
    project = ProjectFactory.create()
    users_before = User.objects.count()

    with pytest.raises(DomainError, match="looks like the existing account 'admin'"):
        document_import(project=project, path=_tab_file(tmp_path, CYRILLIC_ADMIN), fmt="tab")

    assert not User.objects.filter(username=CYRILLIC_ADMIN).exists()
    assert User.objects.count() == users_before
    assert not Document.objects.filter(project=project).exists()


def test_an_import_normalises_annotator_names(tmp_path: Path):
    project = ProjectFactory.create()
    fullwidth = "\uff41nnotator7"  # "ａnnotator7": FULLWIDTH LATIN SMALL LETTER A

    summary = document_import(project=project, path=_tab_file(tmp_path, fullwidth), fmt="tab")

    assert summary.users_created == ["annotator7"]
    annotation_set = AnnotationSet.objects.get(document__project=project)
    assert annotation_set.annotator is not None
    assert annotation_set.annotator.username == "annotator7"
    # The same file again (another project) reuses that account, not a look-alike.
    other = ProjectFactory.create()
    again = document_import(project=other, path=_tab_file(tmp_path, fullwidth), fmt="tab")
    assert again.users_created == []


def test_the_import_api_answers_a_look_alike_with_400(tmp_path: Path):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    from annotation.models import Role
    from tests.factories import MembershipFactory

    UserFactory.create(username="admin")
    project = ProjectFactory.create()
    owner = UserFactory.create()
    MembershipFactory.create(project=project, user=owner, role=Role.ADMIN)
    client = APIClient()
    client.force_authenticate(owner)
    upload = SimpleUploadedFile("docs.json", _tab_file(tmp_path, CYRILLIC_ADMIN).read_bytes())
    response = client.post(
        f"/api/projects/{project.pk}/import/",
        {"file": upload, "format": "tab", "sync": "true"},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert "looks like the existing account" in response.json()["detail"]
    assert not Document.objects.filter(project=project).exists()
