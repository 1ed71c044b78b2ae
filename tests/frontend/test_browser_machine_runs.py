"""Machine runs in a real Chromium: a re-run of pre-annotation (by a real Celery worker)
replaces the first layer; the editor hides a run, filters suggestions by type and
confidence, accepts or rejects them in bulk, and its overview strip marks what is left."""

from __future__ import annotations

import json

import pytest

from annotation.models import AnnotationSet, Project, Role, SetKind, SetSource, Span
from annotation.services import machine_set_create
from jobs.models import Job, JobStatus
from sanitizer.types import EntitySpan
from tests.factories import (
    SAMPLE_TEXT,
    AssignmentFactory,
    DocumentFactory,
    MembershipFactory,
    UserFactory,
)
from tests.frontend.browser import browser, login, page, screenshot, wait_ready
from tests.frontend.sample import ANKARA, DATE, NAME
from tests.knowledge.test_services import PEOPLE

__all__ = ["browser", "page"]  # fixtures used by name

pytest_plugins = ["tests.celery_worker"]
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = (SAMPLE_TEXT.index("36110/97"), SAMPLE_TEXT.index("36110/97") + len("36110/97"))


def _span(extent, label, confidence, decision="QUASI"):
    start, end = extent
    return EntitySpan(
        start, end, label, SAMPLE_TEXT[start:end], identifier_type=decision, confidence=confidence
    )


def _editor_suggestions(page):
    return page.evaluate("window.__editor.store.suggestions().length")


@pytest.mark.celery_worker
@pytest.mark.slow
def test_rerunning_preannotation_leaves_one_layer(live_server, page, celery_worker):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="case-rerun")
    admin = UserFactory.create(username="adele")
    MembershipFactory.create(project=document.project, user=admin, role=Role.ADMIN)

    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{document.project_id}/admin/")
    wait_ready(page)
    page.click("#start-preannotate")
    page.wait_for_selector(".job[data-status='succeeded']", timeout=180_000)
    first = list(Span.objects.filter(annotation_set__document=document).order_by("start"))
    assert first

    page.check("#redo-existing")  # run it again over the same document
    page.click("#start-preannotate")
    page.wait_for_function(
        "document.querySelectorAll(\".job[data-status='succeeded']\").length === 2",
        timeout=180_000,
    )
    assert Job.objects.filter(status=JobStatus.SUCCEEDED).count() == 2

    # One current layer with the same suggestions; the first run is kept as history.
    current = document.annotation_sets.get(kind=SetKind.MACHINE)
    assert current.job_id == Job.objects.latest("id").pk
    assert AnnotationSet.history.filter(document=document, kind=SetKind.MACHINE).count() == 2
    spans = [(s.start, s.end, s.entity_type) for s in current.spans.order_by("start")]
    assert spans == [(s.start, s.end, s.entity_type) for s in first]

    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)
    assert _editor_suggestions(page) == len(spans)  # not twice as many
    assert page.locator(".run-toggle").count() == 1
    assert page.get_attribute("#overview", "data-unreviewed") == str(len(spans))
    screenshot(page, "editor-one-machine-layer")


def test_filters_bulk_actions_and_overview(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="case-filters")
    annotator = UserFactory.create(username="alice")
    MembershipFactory.create(project=document.project, user=annotator, role=Role.ANNOTATOR)
    AssignmentFactory.create(document=document, user=annotator)
    recognizer = machine_set_create(
        document=document,
        source=SetSource.PREANNOTATION,
        source_name="recognizer",
        source_version="1",
        spans=[
            _span(NAME, "PERSON", 0.95, "DIRECT"),
            _span(ANKARA, "LOC", 0.4),
            _span(DATE, "DATETIME", 0.8),
            _span(CODE, "CODE", 0.9, "DIRECT"),
        ],
    )
    distant = machine_set_create(
        document=document,
        source=SetSource.DISTANT,
        source_name="distant-labelling",
        source_version="1",
        spans=[_span(NAME, "PERSON", None, "DIRECT")],
    )
    ankara = recognizer.spans.get(start=ANKARA[0])

    login(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)

    def expect_unreviewed(count):
        # The strip redraws a moment after a change: wait for the state, then check it.
        page.wait_for_function(
            f"document.querySelector('#overview').dataset.unreviewed === '{count}'"
        )

    def machine_segments():
        return page.locator("#doc .seg.L-machine").count()

    expect_unreviewed(5)
    assert page.locator("#overview .ov-mark").count() >= 3

    # Hide the distant-labelling run: its suggestion leaves the text and the strip.
    page.uncheck(f".run-toggle[data-run='{distant.pk}']")
    expect_unreviewed(4)
    assert page.evaluate("window.__editor.view.spans.size") == 4
    # By type, then by confidence.
    page.uncheck(".type-filter[value='DATETIME']")
    expect_unreviewed(3)
    page.fill("#min-confidence", "0.5")
    page.dispatch_event("#min-confidence", "change")
    expect_unreviewed(2)  # PERSON 0.95 and CODE 0.9
    assert machine_segments() == 2
    page.fill("#min-confidence", "0")
    page.dispatch_event("#min-confidence", "change")
    page.check(".type-filter[value='DATETIME']")
    expect_unreviewed(4)
    screenshot(page, "editor-filters")

    # Accept every shown PERSON suggestion: through the editor's own save.
    page.select_option("#bulk-scope", "type")
    page.select_option("#bulk-type", "PERSON")
    page.click("#bulk-accept")
    page.wait_for_selector("#save-status.ok", timeout=10_000)
    assert page.text_content("#save-status") == "All changes saved"
    own = AnnotationSet.objects.get(document=document, kind=SetKind.HUMAN, annotator=annotator)
    assert [(s.start, s.end, s.entity_type, s.identifier_type) for s in own.spans.all()] == [
        (*NAME, "PERSON", "DIRECT")
    ]

    # Reject everything below 0.5 (Ankara, 0.4): recorded on the server one by one.
    page.select_option("#bulk-scope", "below")
    page.fill("#bulk-threshold", "0.5")
    page.click("#bulk-reject")
    page.wait_for_selector("#save-status.ok", timeout=10_000)
    own.refresh_from_db()
    assert own.parameters["rejected_suggestions"] == [ankara.pk]
    expect_unreviewed(2)  # DATETIME and CODE are left
    assert own.spans.count() == 1


@pytest.mark.celery_worker
@pytest.mark.slow
def test_knowledge_base_upload_and_distant_labelling_from_the_admin_page(
    live_server, page, celery_worker, settings, tmp_path
):
    settings.MODEL_DIR = tmp_path / "models"
    settings.UPLOAD_DIR = tmp_path / "uploads"
    kb_file = tmp_path / "people.jsonl"
    kb_file.write_text("".join(json.dumps({**p, "aliases": []}) + "\n" for p in PEOPLE))
    document = DocumentFactory.create(
        text="She lives in Lisbon. She was born in Freamunde.", external_id="d1"
    )
    Project.objects.filter(pk=document.project_id).update(k_anonymity=2)
    admin = UserFactory.create(username="adele")
    MembershipFactory.create(project=document.project, user=admin, role=Role.ADMIN)

    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{document.project_id}/admin/")
    wait_ready(page)
    page.set_input_files("#kb-file", str(kb_file))
    page.fill("#kb-form input[name=name]", "five people")
    page.click("#kb-form button[type=submit]")
    page.wait_for_selector("tr[data-kb][data-status='ready']", timeout=180_000)

    def succeeded(count):
        page.wait_for_function(
            f"document.querySelectorAll(\".job[data-status='succeeded']\").length === {count}",
            timeout=240_000,
        )

    page.select_option("#distant-form select[name=selection]", "greedy")
    page.fill("#distant-form input[name=max_arity]", "2")
    page.click("#distant-form button[type=submit]")
    succeeded(2)  # the index, then the labelling
    distant = document.annotation_sets.get(kind=SetKind.MACHINE, source=SetSource.DISTANT)
    assert [s.text for s in distant.spans.all()] == ["Freamunde"]

    page.click("#distant-form button[type=submit]")  # labelling again replaces the layer
    succeeded(3)
    current = document.annotation_sets.get(kind=SetKind.MACHINE, source=SetSource.DISTANT)
    assert current.pk != distant.pk
    assert [s.text for s in current.spans.all()] == ["Freamunde"]
    assert AnnotationSet.history.filter(document=document, source=SetSource.DISTANT).count() == 2
    screenshot(page, "admin-distant-labelling")
