"""Annotator and reviewer scenarios in a real Chromium against the live server; the
database is checked afterwards for exactly what the keystrokes and clicks meant."""

from __future__ import annotations

import pytest

from annotation.models import AnnotationSet, Role, SetKind, SetStatus
from tests.factories import (
    SAMPLE_TEXT,
    AnnotationSetFactory,
    AssignmentFactory,
    DocumentFactory,
    MembershipFactory,
    SpanFactory,
    UserFactory,
)
from tests.frontend.browser import (
    browser,
    login,
    page,
    screenshot,
    select_text,
    wait_ready,
)
from tests.frontend.sample import ANKARA, DATE, NAME

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _member(project, username, role):
    user = UserFactory.create(username=username)
    MembershipFactory.create(project=project, user=user, role=role)
    return user


def test_annotator_accepts_creates_and_decides(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="case-1")
    alice = _member(document.project, "alice", Role.ANNOTATOR)
    AssignmentFactory.create(document=document, user=alice)
    machine = AnnotationSetFactory.create(
        document=document, kind=SetKind.MACHINE, annotator=None, source_name="distant-kb"
    )
    suggestion = SpanFactory.create(
        annotation_set=machine,
        start=NAME[0],
        end=NAME[1],
        entity_type="PERSON",
        identifier_type="DIRECT",
        confidence=0.9,
        attrs={"term": "galip yalman", "combination": ["galip yalman"], "count": 1},
    )
    SpanFactory.create(
        annotation_set=machine,
        start=ANKARA[0],
        end=ANKARA[1],
        entity_type="LOC",
        identifier_type="QUASI",
    )

    login(page, live_server.url, "alice")
    screenshot(page, "annotator-queue")
    page.keyboard.press("n")  # opens the next unfinished document
    page.wait_for_url(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)
    assert page.text_content("#target-person") == "Galip Yalman"
    assert page.locator("#doc .seg.L-machine").count() == 2

    page.keyboard.press("]")  # first unreviewed suggestion
    page.hover(f"#doc .seg[data-k='m{suggestion.pk}']")
    assert "galip yalman → 1 person" in page.text_content("#tooltip")
    screenshot(page, "annotator-suggestion-hover")
    page.keyboard.press("a")  # accept: copy into the annotator's own set

    # "1997" alone is selected and snapped to whole tokens; then extended by keyboard.
    select_text(page, DATE[0] + 1, DATE[1] - 7)  # "2 March" partially
    page.keyboard.press("Shift+ArrowRight")  # extend the end by a token: "... 1997"
    page.keyboard.press("t")  # DATETIME
    page.keyboard.press("1")  # DIRECT
    page.wait_for_selector("#save-status.ok", timeout=10_000)
    assert page.text_content("#save-status") == "All changes saved"
    screenshot(page, "annotator-editor")

    own = AnnotationSet.objects.get(document=document, kind=SetKind.HUMAN, annotator=alice)
    rows = list(
        own.spans.order_by("start").values_list(
            "start", "end", "text", "entity_type", "identifier_type"
        )
    )
    assert rows == [
        (NAME[0], NAME[1], "Galip Yalman", "PERSON", "DIRECT"),
        (DATE[0], DATE[1], "12 March 1997", "DATETIME", "DIRECT"),
    ]
    accepted = own.spans.get(start=NAME[0])
    assert accepted.attrs["accepted_from"] == suggestion.pk

    # Masked preview shows the text as released from the annotator's own decisions
    # (computed by the server's release function).
    page.keyboard.press("v")
    page.wait_for_selector("#preview[data-state='ready']")
    preview = page.text_content("#preview")
    assert "Mr [PERSON], was born" in preview
    assert "on [DATETIME]." in preview
    assert "Ankara" in preview  # the suggestion was not accepted
    screenshot(page, "annotator-masked-preview")
    # While shown, the preview follows the edits: NO_MASK keeps the date.
    page.keyboard.press("3")
    page.wait_for_function(
        "document.querySelector('#preview').dataset.state === 'ready'"
        " && document.querySelector('#preview').textContent.includes('on 12 March 1997.')"
    )
    page.keyboard.press("z")  # undo: DIRECT again
    page.keyboard.press("v")

    page.click("#submit")
    page.wait_for_selector("#set-status:has-text('submitted')")
    own.refresh_from_db()
    assert own.status == SetStatus.SUBMITTED


def test_reviewer_adjudicates_a_disagreement(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="case-2")
    reviewer = _member(document.project, "rita", Role.REVIEWER)
    sets = {}
    for name, decision in (("alice", "QUASI"), ("bob", "NO_MASK")):
        user = _member(document.project, name, Role.ANNOTATOR)
        sets[name] = AnnotationSetFactory.create(
            document=document, annotator=user, status=SetStatus.SUBMITTED
        )
        SpanFactory.create(annotation_set=sets[name], start=NAME[0], end=NAME[1])  # both DIRECT
        SpanFactory.create(
            annotation_set=sets[name],
            start=ANKARA[0],
            end=ANKARA[1],
            entity_type="LOC",
            identifier_type=decision,
        )

    login(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/documents/{document.pk}/review/")
    wait_ready(page)
    assert page.locator("#units tr.disagree").count() == 1
    assert page.locator("#units tr.agree").count() == 1
    assert page.is_disabled("#complete")
    page.check("#only-disagreements")
    rows = page.locator("#units tr[data-unit]")
    assert rows.count() == 1
    assert "Ankara" in rows.first.text_content()
    page.wait_for_selector("#agreement table.coefficients")
    screenshot(page, "reviewer-disagreements")

    rows.first.locator("td[data-set='bob'] button.adopt").click()
    page.wait_for_selector("#units td.cell-gold select.gold-decision")
    gold = AnnotationSet.objects.get(document=document, kind=SetKind.GOLD)
    assert list(gold.spans.values_list("start", "end", "entity_type", "identifier_type")) == [
        (ANKARA[0], ANKARA[1], "LOC", "NO_MASK")
    ]
    # The agreed name goes in too, then the gold set is published.
    page.uncheck("#only-disagreements")
    page.locator("#units tr.agree td[data-set='alice'] button.adopt").click()
    page.wait_for_function("document.querySelectorAll('#units select.gold-decision').length === 2")
    page.click("#publish")
    # The published state itself: the text ", not published" contains "published" too.
    page.wait_for_selector("#gold-status[data-published='true']")
    screenshot(page, "reviewer-gold")
    gold.refresh_from_db()
    assert gold.published_at is not None
    assert sorted(gold.spans.values_list("start", "end", "identifier_type")) == [
        (NAME[0], NAME[1], "DIRECT"),
        (ANKARA[0], ANKARA[1], "NO_MASK"),
    ]


def test_reviewer_agreement_page_and_admin_import_errors(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="case-3")
    admin = _member(document.project, "adele", Role.ADMIN)
    for name, decision in (("alice", "QUASI"), ("bob", "NO_MASK")):
        user = _member(document.project, name, Role.ANNOTATOR)
        own = AnnotationSetFactory.create(
            document=document, annotator=user, status=SetStatus.SUBMITTED
        )
        SpanFactory.create(annotation_set=own, start=NAME[0], end=NAME[1])
        SpanFactory.create(
            annotation_set=own, start=ANKARA[0], end=ANKARA[1], identifier_type=decision
        )
    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{document.project_id}/agreement/")
    wait_ready(page)
    assert page.locator("table.pairs tr").count() == 2  # header + alice × bob
    assert page.locator("#agreement svg.chart").count() >= 1
    screenshot(page, "agreement-project")

    page.goto(f"{live_server.url}/projects/{document.project_id}/admin/")
    wait_ready(page)
    bad = (
        '[{"doc_id": "bad-1", "text": "Anna lives in Oslo.", "annotations": {"ann": '
        '{"entity_mentions": [{"entity_mention_id": "bad-1_m0", "start_offset": 0, '
        '"end_offset": 99, "span_text": "Anna", "entity_type": "PERSON", '
        '"identifier_type": "DIRECT", "entity_id": "e1"}]}}}]'
    )
    page.set_input_files(
        "#import-file",
        files=[{"name": "bad.json", "mimeType": "application/json", "buffer": bad.encode()}],
    )
    page.click("#import-form button[type=submit]")
    page.wait_for_selector(".import-errors")
    assert page.text_content(".err-doc") == "bad-1"
    assert page.text_content(".err-mention") == "bad-1_m0"
    screenshot(page, "admin-import-error")
    assert not document.project.documents.filter(external_id="bad-1").exists()


def test_offsets_survive_characters_outside_the_basic_plane(live_server, page):
    """Python counts code points, the page UTF-16 units: emoji must not shift spans."""
    text = "Mood 😀🎉 note: the applicant Galip Yalman lives in Ankara 🏠 since 1999."
    document = DocumentFactory.create(text=text, external_id="emoji")
    alice = _member(document.project, "alice", Role.ANNOTATOR)
    AssignmentFactory.create(document=document, user=alice)
    machine = AnnotationSetFactory.create(
        document=document, kind=SetKind.MACHINE, annotator=None, source_name="rules"
    )
    ankara = SpanFactory.create(
        annotation_set=machine,
        start=text.index("Ankara"),
        end=text.index("Ankara") + 6,
        entity_type="LOC",
        identifier_type="QUASI",
    )
    login(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)
    # The server's suggestion is drawn over the right characters.
    assert page.text_content(f"#doc .seg[data-k='m{ankara.pk}']") == "Ankara"

    name = text.index("Galip Yalman")
    astral_before = sum(1 for ch in text[:name] if ord(ch) > 0xFFFF)
    select_text(page, name + astral_before, name + astral_before + len("Galip Yalman"))
    page.keyboard.press("p")  # PERSON
    page.keyboard.press("1")  # DIRECT
    page.wait_for_selector("#save-status.ok", timeout=10_000)

    own = AnnotationSet.objects.get(document=document, kind=SetKind.HUMAN, annotator=alice)
    assert list(own.spans.values_list("start", "end", "text", "entity_type")) == [
        (name, name + len("Galip Yalman"), "Galip Yalman", "PERSON")
    ]
    # The preview sends code-point offsets to the server's release function too.
    page.keyboard.press("v")
    page.wait_for_selector("#preview[data-state='ready']")
    assert page.text_content("#preview") == text.replace("Galip Yalman", "[PERSON]")
