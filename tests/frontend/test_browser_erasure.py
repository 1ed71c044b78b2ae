"""Erasure in a real Chromium: the admin erases a document and then the project, each
after typing its name back; staff erase a user's data and read the audit records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Document, Project, Role
from erasure.models import ErasureRecord
from tests.factories import DocumentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.frontend.browser import browser, login, page, screenshot, strict_page, wait_ready

__all__ = ["browser", "page", "strict_page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def storage(settings: Any, tmp_path: Path) -> None:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.MODEL_DIR = tmp_path / "models"


def test_an_admin_erases_a_document_then_the_project(live_server: Any, page: Any) -> None:
    project = ProjectFactory.create(name="doomed project")
    admin = UserFactory.create(username="adele")
    MembershipFactory.create(project=project, user=admin, role=Role.ADMIN)
    gone = DocumentFactory.create(project=project, external_id="erase-me")
    kept = DocumentFactory.create(project=project, external_id="keep-me", position=1)

    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{project.pk}/admin/")
    wait_ready(page)
    page.click(f"tr[data-document='{gone.pk}'] button.erase-document")
    form = page.wait_for_selector(f"form.erase-document[data-document='{gone.pk}']")
    page.fill("form.erase-document input[name=confirm]", "erase-me-not")
    page.fill("form.erase-document textarea[name=reason]", "withdrawn consent")
    page.click("form.erase-document button.confirm-erase")
    page.wait_for_selector("#erasure-message.error")
    assert "external id exactly" in page.text_content("#erasure-message")
    assert Document.objects.filter(pk=gone.pk).exists()

    page.fill("form.erase-document input[name=confirm]", "erase-me")
    form.query_selector("button.confirm-erase").click()
    page.wait_for_selector("#erasure-message.ok")
    assert f"document #{gone.pk}" in page.text_content("#erasure-message")
    assert page.query_selector(f"tr[data-document='{gone.pk}']") is None
    assert not Document.objects.filter(pk=gone.pk).exists()
    assert Document.objects.filter(pk=kept.pk).exists()
    screenshot(page, "erasure-document")

    page.fill("#erase-project-form input[name=confirm]", "doomed project")
    page.fill("#erase-project-form input[name=reason]", "study over")
    page.click("#erase-project-form button[type=submit]")
    page.wait_for_selector("section.erased")
    assert f"project #{project.pk}" in page.text_content("section.erased")
    assert not Project.objects.filter(pk=project.pk).exists()
    assert list(ErasureRecord.objects.values_list("kind", flat=True)) == ["project", "document"]


def test_staff_erase_a_users_data_and_see_the_record(live_server: Any, strict_page: Any) -> None:
    # Under the app's Content-Security-Policy, as served.
    page = strict_page
    staff = UserFactory.create(username="steward", is_staff=True)
    target = UserFactory.create(username="leaving-annotator")

    login(page, live_server.url, staff.username)
    page.click("a.nav-link[href='/erasure/']")
    wait_ready(page)
    page.click(f"tr[data-user='{target.pk}'] button.erase-user")
    page.fill("form.erase-user-form input[name=confirm]", "leaving-annotator")
    page.fill("form.erase-user-form textarea[name=reason]", "asked to be forgotten")
    page.click("form.erase-user-form button.confirm-erase")
    page.wait_for_selector("#erasure-message.ok")
    row = page.wait_for_selector("tr[data-kind='user']")
    assert f"data of user #{target.pk}" in row.text_content()
    assert "asked to be forgotten" in row.text_content()
    assert get_user_model().objects.get(pk=target.pk).username == f"erased-user-{target.pk}"
    screenshot(page, "erasure-user")
    assert page.csp_violations == []
