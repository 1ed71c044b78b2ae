"""The admin's whole job in a real Chromium: create a project with its guidelines and
privacy settings, activate models with their evaluation side by side (a warning for a
worse one, and back to the built-in recognizer), assign only to active accounts, and
download an export that equals the command line's."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation.models import Membership, Project, Role, SetSource
from annotation.services import machine_set_create
from ml.models import ModelVersion
from sanitizer.types import EntitySpan
from tests.factories import (
    SAMPLE_TEXT,
    DocumentFactory,
    MembershipFactory,
    ModelVersionFactory,
    ProjectFactory,
    UserFactory,
)
from tests.frontend.browser import browser, login, page, screenshot, wait_ready

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _admin(project, username="adele"):
    user = UserFactory.create(username=username)
    MembershipFactory.create(project=project, user=user, role=Role.ADMIN)
    return user


def test_activating_a_worse_model_warns_and_the_builtin_recognizer_comes_back(live_server, page):
    project = ProjectFactory.create()
    admin = _admin(project)
    good = ModelVersionFactory.create(
        project=project, name="ner", version="good", metrics={"token_f1": 0.81}, is_active=True
    )
    bad = ModelVersionFactory.create(
        project=project, name="ner", version="30-steps", metrics={"token_f1": 0.013}
    )

    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{project.pk}/admin/")
    wait_ready(page)
    page.wait_for_selector(f"tr[data-model='{bad.pk}'] button.activate")
    page.click(f"tr[data-model='{bad.pk}'] button.activate")
    compare = page.wait_for_selector(".model-compare")
    # Both evaluations side by side, and a warning naming both figures.
    assert compare.get_attribute("data-worse") == "1"
    text = compare.text_content()
    assert "ner@30-steps" in text and "ner@good" in text
    assert "token_f1 0.013" in text and "token_f1 0.810" in text
    assert "Warning" in page.text_content(".model-compare .warning")
    screenshot(page, "admin-model-worse-warning")
    assert ModelVersion.objects.get(pk=good.pk).is_active  # nothing changed yet

    page.click(".model-compare button.confirm-activate")  # "Activate anyway"
    page.wait_for_selector(f"tr[data-model='{bad.pk}'] button.deactivate")
    assert ModelVersion.objects.get(pk=bad.pk).is_active
    assert not ModelVersion.objects.get(pk=good.pk).is_active

    # Back to the built-in recognizer.
    page.click("tr[data-model='builtin'] button.use-builtin")
    page.wait_for_selector("tr[data-model='builtin'] strong.ok")
    assert not ModelVersion.objects.filter(project=project, is_active=True).exists()
    assert "built-in recognizer" in page.text_content("#model-message")


def test_a_browser_export_downloads_the_masks_of_the_command_line(live_server, page, tmp_path):
    project = ProjectFactory.create(name="export-project")
    admin = _admin(project)
    for n in range(2):
        document = DocumentFactory.create(project=project, text=SAMPLE_TEXT, external_id=f"d{n}")
        machine_set_create(
            document=document,
            source=SetSource.PREANNOTATION,
            source_name="recognizer",
            source_version="1",
            spans=[
                EntitySpan(18, 30, "PERSON", "Galip Yalman", identifier_type="DIRECT"),
                EntitySpan(62, 68, "LOC", "Ankara", identifier_type="QUASI"),
            ][: n + 1],
        )
    cli = tmp_path / "cli-masks.json"
    call_command(
        "export_documents", "--project", project.name, "--format", "masks", "--output", str(cli)
    )

    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{project.pk}/admin/")
    wait_ready(page)
    page.select_option("#export-form select[name=format]", "masks")
    assert page.is_hidden("#export-form select[name=style]")  # only for released text
    with page.expect_download() as info:
        page.click("#export-download")
    download = info.value
    assert download.suggested_filename == f"project-{project.pk}-masks.json"
    browser_masks = json.loads(download.path().read_text(encoding="utf-8"))
    assert browser_masks == json.loads(cli.read_text(encoding="utf-8"))
    assert browser_masks == {"d0": [[18, 30]], "d1": [[18, 30], [62, 68]]}

    # Released text in a style is a download too.
    page.select_option("#export-form select[name=format]", "text")
    page.select_option("#export-form select[name=style]", "mask")
    with page.expect_download() as info:
        page.click("#export-download")
    released = json.loads(info.value.path().read_text(encoding="utf-8"))
    assert released[0]["doc_id"] == "d0"
    assert "Mr [MASK], was born" in released[0]["text"]


def test_a_project_is_created_with_guidelines_shown_in_the_editor(live_server, page):
    user = UserFactory.create(username="founder")
    login(page, live_server.url, user.username)
    wait_ready(page)
    page.click("#new-project summary")
    page.fill("#project-create-form input[name=name]", "Judgments 2026")
    page.fill("#project-create-form textarea[name=guidelines]", "Mask every name of a party.")
    page.fill("#project-create-form input[name=k_anonymity]", "7")
    page.check("#component-choices input[value='spacy_ner']")
    page.click("#project-create-form button[type=submit]")
    page.wait_for_url("**/projects/*/admin/")

    project = Project.objects.get(name="Judgments 2026")
    assert (project.guidelines, project.k_anonymity) == ("Mask every name of a party.", 7)
    assert project.privacy_settings == {"recognizer_components": ["spacy_ner"]}
    assert Membership.objects.get(project=project, user=user).role == Role.ADMIN

    document = DocumentFactory.create(project=project, text=SAMPLE_TEXT)
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)
    assert not page.is_visible(".guidelines-text")  # collapsed until asked for
    page.click("#guidelines summary")
    assert page.text_content(".guidelines-text").strip() == "Mask every name of a party."


def test_assignment_offers_only_active_members(live_server, page):
    project = ProjectFactory.create()
    admin = _admin(project)
    DocumentFactory.create(project=project, external_id="only-doc")
    alice = UserFactory.create(username="alice")
    MembershipFactory.create(project=project, user=alice, role=Role.ANNOTATOR)
    imported = UserFactory.create(username="annotator1", is_active=False)
    MembershipFactory.create(project=project, user=imported, role=Role.ANNOTATOR)

    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{project.pk}/admin/")
    wait_ready(page)
    page.wait_for_selector(".annotator-check")
    offered = page.eval_on_selector_all(".annotator-check", "els => els.map(e => e.value)")
    assert offered == [str(alice.pk)]
    assert "1 inactive" in page.text_content(".inactive-note")
    page.fill("#overlap", "1")
    page.check(".doc-check")
    page.click("#assign-form button[type=submit]")
    page.wait_for_selector("#assign-message.ok")
    assert page.text_content("tr[data-document] .assignees") == "alice"


def test_queue_search_filter_and_sort(live_server, page):
    project = ProjectFactory.create()
    admin = _admin(project)
    for name, person, text in (("b-case", "Ann Lee", "x" * 50), ("a-case", "Bo Park", "y" * 10),
                               ("c-case", "Cy Ray", "z" * 30)):  # fmt: skip
        DocumentFactory.create(project=project, external_id=name, target_person=person, text=text)
    login(page, live_server.url, admin.username)
    wait_ready(page)

    def shown():
        return page.eval_on_selector_all(
            "section.project tr[data-document-id]:not([hidden]) .doc-id",
            "els => els.map(e => e.textContent.trim())",
        )

    assert shown() == ["b-case", "a-case", "c-case"]  # file order
    page.click("th[data-sort=chars]")
    assert shown() == ["a-case", "c-case", "b-case"]
    page.click("th[data-sort=chars]")
    assert shown() == ["b-case", "c-case", "a-case"]
    page.fill(".queue-search", "park")
    assert shown() == ["a-case"]
    page.fill(".queue-search", "")
    page.select_option(".queue-status", "new")
    assert len(shown()) == 3
    assert page.text_content(".queue-count") == "3 of 3"
