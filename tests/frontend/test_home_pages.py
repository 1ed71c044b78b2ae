"""The home page is paged: a superuser's page must not carry every document of every
project (it grew to 39 MB), and no document's text is sent at all."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from annotation.models import Document, Project, Role
from annotation.selectors import pages
from tests.factories import AssignmentFactory, MembershipFactory, UserFactory

TEXT = "The secret text of document number "


def _documents(project: Project, count: int, prefix: str = "doc") -> list[Document]:
    return Document.objects.bulk_create(
        Document(project=project, external_id=f"{prefix}-{i:04d}", text=f"{TEXT}{i}", position=i)
        for i in range(count)
    )


def _rows(html: str) -> int:
    return html.count("data-document-id=")


@pytest.fixture
def root_client(db: Any) -> Client:
    client = Client()
    client.force_login(UserFactory.create(username="root", is_superuser=True, is_staff=True))
    return client


def test_superuser_home_is_bounded_by_the_page_sizes(root_client: Client) -> None:
    big = Project.objects.create(name="a big project")
    _documents(big, pages.HOME_DOCUMENTS_PER_PAGE + 30, prefix="big")
    for i in range(pages.HOME_PROJECTS_PER_PAGE + 3):
        _documents(Project.objects.create(name=f"p{i:03d}"), 2)

    html = root_client.get("/").content.decode()
    assert html.count('class="card project"') == pages.HOME_PROJECTS_PER_PAGE
    # The big project: one page of documents, 2 in each other project shown.
    assert _rows(html) == pages.HOME_DOCUMENTS_PER_PAGE + 2 * (pages.HOME_PROJECTS_PER_PAGE - 1)
    assert TEXT not in html  # lengths only, never the text
    assert f"of {pages.HOME_DOCUMENTS_PER_PAGE + 30}" in html
    assert f'href="?page=1&amp;project={big.pk}&amp;docs=2"' in html
    assert 'href="?page=2"' in html

    second = root_client.get(f"/?page=1&project={big.pk}&docs=2").content.decode()
    assert "big-0129" in second and "big-0000" not in second
    last_projects = root_client.get("/?page=2").content.decode()
    assert last_projects.count('class="card project"') == 4  # 24 projects in all
    # Junk page numbers fall back to a valid page instead of failing.
    assert root_client.get("/?page=abc&project=x&docs=-1").status_code == 200


def test_annotator_queue_is_paged_with_their_own_status(
    db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "HOME_DOCUMENTS_PER_PAGE", 3)
    annotator = UserFactory.create(username="annotator")
    project = Project.objects.create(name="queue")
    MembershipFactory.create(project=project, user=annotator, role=Role.ANNOTATOR)
    documents = _documents(project, 7)
    for document in documents[:5]:
        AssignmentFactory.create(document=document, user=annotator)
    client = Client()
    client.force_login(annotator)
    first = client.get("/").content.decode()
    assert _rows(first) == 3
    assert "Not started" in first
    assert "documents 1–3 of 5" in first
    last = client.get(f"/?project={project.pk}&docs=2").content.decode()
    assert _rows(last) == 2
    assert "doc-0004" in last and "doc-0005" not in last
