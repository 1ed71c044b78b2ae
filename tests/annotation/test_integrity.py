"""Integrity: an annotated document's text never changes (the Django admin included),
and the app's reserved meta keys are written by the app only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.models import TAB_EXTRA_KEY, Document, DocumentStatus, Role, SetKind
from annotation.services import document_import, document_update
from common.errors import DomainError
from sanitizer.formats.tab import FormatError
from tests.factories import (
    AnnotationSetFactory,
    DocumentFactory,
    MembershipFactory,
    ProjectFactory,
    SpanFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def _admin_client(document: Document) -> Client:
    client = Client()
    client.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    return client


def _change_form(document: Document, **changes: str) -> dict[str, str]:
    data = {
        "project": str(document.project_id),
        "external_id": document.external_id,
        "text": document.text,
        "meta": json.dumps(document.meta),
        "task": document.task,
        "split": document.split,
        "target_person": document.target_person,
        "position": str(document.position),
        "status": document.status,
    }
    data.update(changes)
    return data


# --- document text -------------------------------------------------------------------


def test_the_admin_cannot_change_the_text_of_an_annotated_document():
    span = SpanFactory.create(start=0, end=5)
    document = span.annotation_set.document
    original = document.text
    client = _admin_client(document)
    url = f"/admin/annotation/document/{document.pk}/change/"

    page = client.get(url).content.decode()
    assert 'name="text"' not in page  # shown read-only, not as a field
    response = client.post(url, _change_form(document, text="XXXXX" + original[5:]))

    assert response.status_code == 302, response.content.decode()[-2000:]
    document.refresh_from_db()
    assert document.text == original


def test_the_admin_form_refuses_a_text_change_even_when_posted_as_a_field():
    from annotation.admin import DocumentAdminForm

    document = SpanFactory.create().annotation_set.document
    form = DocumentAdminForm(
        data=_change_form(document, text="changed"), instance=Document.objects.get(pk=document.pk)
    )
    assert not form.is_valid()
    assert "cannot change" in str(form.errors["text"])


def test_the_admin_may_still_fix_the_text_of_a_document_nobody_annotated():
    document = DocumentFactory.create()
    client = _admin_client(document)
    url = f"/admin/annotation/document/{document.pk}/change/"
    response = client.post(url, _change_form(document, text="A corrected text."))
    assert response.status_code == 302
    document.refresh_from_db()
    assert document.text == "A corrected text."


@pytest.mark.parametrize("kind", [SetKind.HUMAN, SetKind.MACHINE])
def test_an_annotation_set_without_spans_also_fixes_the_text(kind: str):
    # "Nothing to mask here" is a decision about these very characters.
    annotation_set = AnnotationSetFactory.create(kind=kind)
    document = annotation_set.document
    with pytest.raises(DomainError, match="cannot change"):
        document_update(document=document, text="Another text entirely.")
    document.refresh_from_db()
    assert document.text != "Another text entirely."


def test_an_imported_annotated_document_keeps_its_text():
    document = DocumentFactory.create(status=DocumentStatus.ANNOTATED)
    with pytest.raises(DomainError, match="cannot change"):
        document_update(document=document, text="Another text.")


# --- reserved meta keys --------------------------------------------------------------


@pytest.fixture
def tab_document() -> tuple[Document, APIClient]:
    document = DocumentFactory.create(meta={"year": 2001, TAB_EXTRA_KEY: {"court": "ECHR"}})
    admin = UserFactory.create()
    MembershipFactory.create(project=document.project, user=admin, role=Role.ADMIN)
    client = APIClient()
    client.force_authenticate(admin)
    return document, client


@pytest.mark.parametrize("key", [TAB_EXTRA_KEY, "_anything"])
def test_the_update_api_refuses_reserved_meta_keys(tab_document, key: str):
    document, client = tab_document
    response = client.patch(
        f"/api/documents/{document.pk}/update/",
        {"meta": {"year": 2002, key: {"doc_id": "other", "text": "x"}}},
        format="json",
    )
    assert response.status_code == 400
    assert key in response.json()["detail"] and "reserved" in response.json()["detail"]
    document.refresh_from_db()
    assert document.meta == {"year": 2001, TAB_EXTRA_KEY: {"court": "ECHR"}}


def test_a_meta_change_keeps_the_apps_own_keys(tab_document):
    document, client = tab_document
    response = client.patch(
        f"/api/documents/{document.pk}/update/", {"meta": {"year": 2002}}, format="json"
    )
    assert response.status_code == 200
    document.refresh_from_db()
    assert document.meta == {"year": 2002, TAB_EXTRA_KEY: {"court": "ECHR"}}


def test_the_admin_cannot_write_reserved_meta_keys(tab_document):
    from annotation.admin import DocumentAdminForm

    document, _ = tab_document
    meta = json.dumps({"year": 2001, TAB_EXTRA_KEY: {"court": "forged"}})
    form = DocumentAdminForm(data=_change_form(document, meta=meta), instance=document)
    assert not form.is_valid()
    assert "belong to the app" in str(form.errors["meta"])
    unchanged = DocumentAdminForm(
        data=_change_form(document, target_person="Someone"), instance=document
    )
    assert unchanged.is_valid(), unchanged.errors


@pytest.mark.parametrize("key", [TAB_EXTRA_KEY, "_private"])
def test_imports_refuse_reserved_meta_keys(tmp_path: Path, key: str):
    project = ProjectFactory.create()
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": "d1", "text": "Some text.", "meta": {key: 1}}) + "\n")
    with pytest.raises(FormatError, match="is reserved"):
        document_import(project=project, path=path, fmt="jsonl")
    assert not Document.objects.filter(project=project).exists()
