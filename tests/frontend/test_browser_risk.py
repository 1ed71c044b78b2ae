"""Explicit privacy risk in a real Chromium, against the real risk API: a masking-solver
suggestion shows its reasons (editor panel, tooltip, review table), the per-document dial
re-solves the stored assessment and redraws its overlay of masks and the share masked,
and the admin page draws the project's curve of share masked against threshold."""

from __future__ import annotations

import pytest

from annotation.models import Role, SetSource, Span
from risk.selectors import assessment_solve, risk_assessment_latest
from risk.services import risk_assess_documents, risk_solve_documents
from tests.factories import (
    SAMPLE_TEXT,
    AssignmentFactory,
    DocumentFactory,
    MembershipFactory,
    UserFactory,
)
from tests.frontend.browser import browser, login, page, screenshot, wait_ready
from tests.frontend.sample import ANKARA

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _assessed(external_id, **settings):
    """A document assessed by the risk job's services and solved into a masking set."""
    document = DocumentFactory.create(
        text=SAMPLE_TEXT, external_id=external_id, target_person="Galip Yalman"
    )
    risk_assess_documents(project=document.project, document_ids=None, settings=settings)
    risk_solve_documents(project=document.project, document_ids=None, settings=settings)
    return document


def _member(document, username, role):
    user = UserFactory.create(username=username)
    MembershipFactory.create(project=document.project, user=user, role=role)
    if role == Role.ANNOTATOR:
        AssignmentFactory.create(document=document, user=user)
    return user


def _expected_masks(document, **settings):
    """What the server's solve gives for these dial settings: mask texts, share masked."""
    assessment = risk_assessment_latest(document=document)
    assert assessment is not None
    masking = assessment_solve(assessment=assessment, requested=settings)
    texts = sorted(SAMPLE_TEXT[m["start"] : m["end"]] for m in masking.masks())
    return texts, masking.share_masked


def _drawn(page, count):
    """The overlay's masked texts, once it holds ``count`` ranges."""
    page.wait_for_function(f"CSS.highlights.get('risk-mask').size === {count}")
    return page.evaluate("[...CSS.highlights.get('risk-mask')].map((r) => r.toString()).sort()")


def _ankara_reasons():
    span = Span.objects.get(annotation_set__source=SetSource.MASKING, start=ANKARA[0])
    return [reason["text"] for reason in span.attrs["reasons"]]


def test_suggestion_reasons_and_dial(live_server, page):
    document = _assessed("case-risk", threshold=10.0)
    annotator = _member(document, "alice", Role.ANNOTATOR)
    reasons = _ankara_reasons()
    assert reasons and reasons[0].startswith("LM: log p('Ankara')")
    solves = []
    page.on(
        "request",
        lambda request: (
            solves.append(request.post_data_json) if "/risk/solve/" in request.url else None
        ),
    )

    login(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)

    # The suggestion's reasons, in the span panel and the tooltip.
    key = page.evaluate(
        f"window.__editor.store.suggestions().find((s) => s.start === {ANKARA[0]}).key"
    )
    page.evaluate(f"window.__editor.select('{key}')")
    assert page.locator("#span-panel .reasons li").all_inner_texts() == reasons
    page.locator(f"#doc .seg[data-k~='{key}']").first.hover()
    page.wait_for_selector("#tooltip:not([hidden])")
    assert reasons[0] in page.inner_text("#tooltip")

    # Opening the dial solves with the assessment's settings: the job's own suggestions.
    page.click("#risk-dial summary")
    page.wait_for_selector("#risk-stats[data-state='solved']")
    assert float(page.input_value("#risk-threshold")) == 10
    texts, share = _expected_masks(document, threshold=10)
    assert _drawn(page, len(texts)) == texts
    stored = Span.objects.filter(annotation_set__source=SetSource.MASKING)
    assert texts == sorted(span.text for span in stored)
    assert float(page.get_attribute("#risk-stats", "data-share")) == pytest.approx(share)

    # A stricter threshold (more entities risky) masks more, a laxer one less.
    strict, strict_share = _expected_masks(document, threshold=4)
    lax, lax_share = _expected_masks(document, threshold=16)
    assert len(strict) > len(texts) > len(lax) and strict_share > share > lax_share
    page.fill("#risk-threshold", "4")  # a range input: fill sets it and fires input
    assert _drawn(page, len(strict)) == strict
    page.wait_for_function(
        f"+document.querySelector('#risk-stats').dataset.share === {strict_share}"
    )
    assert f"{100 * strict_share:.1f}% of the text masked" in page.inner_text("#risk-stats")
    # A quick sweep of the slider asks once, after the pause, for where it stopped.
    requests_before = len(solves)
    page.evaluate(
        """() => {
            const slider = document.querySelector("#risk-threshold");
            for (const value of ["6", "10", "14", "16"]) {
                slider.value = value;
                slider.dispatchEvent(new Event("input"));
            }
        }"""
    )
    assert _drawn(page, len(lax)) == lax
    page.wait_for_function(f"+document.querySelector('#risk-stats').dataset.share === {lax_share}")
    assert [body["threshold"] for body in solves[requests_before:]] == [16]

    # Without the lm measure only the DIRECT identifiers are left to mask.
    page.fill("#risk-threshold", "4")
    _drawn(page, len(strict))
    page.uncheck(".risk-measure[value='lm']")
    direct, _ = _expected_masks(document, threshold=4, measures=["linkage"])
    assert _drawn(page, len(direct)) == direct == sorted(["Galip Yalman", "36110/97"])
    assert "lm" not in solves[-1]["measures"]

    # The overlay is not a span: nothing was written for the annotator.
    assert page.evaluate("window.__editor.store.own().length") == 0
    assert not document.annotation_sets.filter(annotator=annotator).exists()
    screenshot(page, "editor-risk-dial")


def test_dial_without_assessment_says_so(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="case-no-risk")
    annotator = _member(document, "alice", Role.ANNOTATOR)
    login(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)
    page.click("#risk-dial summary")
    page.wait_for_selector("#risk-stats[data-state='no-assessment']")
    assert page.inner_text("#risk-stats") == "no risk assessment yet: run the risk job"
    assert page.evaluate("CSS.highlights.get('risk-mask').size") == 0


def test_admin_page_draws_the_curve(live_server, page):
    document = _assessed("case-curve")
    admin = _member(document, "adele", Role.ADMIN)
    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{document.project_id}/admin/")
    wait_ready(page)
    page.wait_for_selector("#risk-curve[data-state='drawn']")
    points = page.locator("#risk-curve svg .point")
    assert points.count() == 10  # admin/risk.js's thresholds 2, 4, ..., 20
    # The share masked falls as the threshold rises: the dots go down the chart.
    heights = [float(points.nth(i).get_attribute("cy")) for i in range(points.count())]
    assert heights == sorted(heights) and heights[0] < heights[-1]
    assert page.locator("#risk-curve svg polyline").count() == 1
    screenshot(page, "admin-risk-curve")


def test_review_table_lists_the_reasons(live_server, page):
    document = _assessed("case-risk-review")
    reviewer = _member(document, "rita", Role.REVIEWER)
    masking = document.annotation_sets.get(source=SetSource.MASKING)
    login(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/documents/{document.pk}/review/")
    wait_ready(page)
    row = page.locator(f"tr[data-start='{ANKARA[0]}']")
    reasons = row.locator(f"td[data-set-id='{masking.pk}'] .chip-reason")
    assert reasons.all_inner_texts() == _ankara_reasons()
