"""Races on the reviewer's page, in a real Chromium against the live server: a gold
change refused by the server, or lost on the network, reloads gold as the server holds
it and publication waits for that; a change made while gold reloads is not hidden by the
older copy; a late count of undecided regions never replaces a newer one. Each test
holds or fails the requests itself, so the order of answers is the one under test."""

from __future__ import annotations

import pytest
from playwright.sync_api import APIResponse, Route

from annotation.models import Role, SetKind, Span
from tests.factories import SAMPLE_TEXT, AnnotationSetFactory, DocumentFactory, SpanFactory
from tests.frontend.browser import browser, page
from tests.frontend.sample import ANKARA, NAME
from tests.frontend.test_browser_annotate_review import _member
from tests.frontend.test_browser_review import (
    _annotated,
    _gold_with,
    _open_review,
    _select_in_text,
    _settled,
    _two_annotators,
)

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_late_count_of_undecided_regions_never_replaces_a_newer_one(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-8b")
    _member(document.project, "rita", Role.REVIEWER)
    _two_annotators(document)
    _open_review(page, live_server, document)
    page.wait_for_selector("#unresolved[data-count='2']")
    held: list[tuple[Route, APIResponse]] = []

    def regions(route):
        # The first count asked after an edit is taken at once (1 undecided) and
        # answered only after a later count (0 undecided) has been shown.
        if not held:
            held.append((route, route.fetch()))
        else:
            route.continue_()

    page.route("**/api/documents/*/gold/regions/", regions)
    page.select_option("#display", "gold")
    page.wait_for_selector("#doc[data-display='gold']")
    _select_in_text(page, NAME[0], NAME[1])
    _settled(page)
    page.keyboard.press("p")
    _settled(page)
    _wait_until(page, lambda: held)
    _select_in_text(page, ANKARA[0], ANKARA[1])
    _settled(page)
    page.keyboard.press("l")
    _settled(page)
    page.wait_for_selector("#unresolved[data-count='0']")
    answers = int(page.get_attribute("#unresolved", "data-answers"))
    route, old_answer = held[0]
    route.fulfill(response=old_answer)
    page.wait_for_function(
        "n => +document.querySelector('#unresolved').dataset.answers > n", arg=answers
    )
    assert page.get_attribute("#unresolved", "data-count") == "0"
    assert "0 of 2 regions undecided" in page.text_content("#unresolved")


def test_a_stale_gold_edit_reloads_instead_of_overwriting(live_server, page):
    from annotation.services import span_update

    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-9")
    reviewer = _member(document.project, "rita", Role.REVIEWER)
    _two_annotators(document)
    gold = AnnotationSetFactory.create(document=document, kind=SetKind.GOLD, annotator=None)
    span = SpanFactory.create(annotation_set=gold, start=NAME[0], end=NAME[1])
    _open_review(page, live_server, document)
    page.click(f"#doc .seg[data-k='g{span.pk}']")
    page.wait_for_selector("#gold-panel #gold-identifier_type")
    # Another reviewer changes the decision meanwhile.
    span_update(span=span, user=reviewer, expected_version=1, identifier_type="QUASI")
    page.keyboard.press("x")  # NO_MASK, based on version 1
    page.wait_for_selector("#message:has-text('changed elsewhere')")
    span.refresh_from_db()
    assert (span.identifier_type, span.version) == ("QUASI", 2)
    page.wait_for_function(
        "id => document.querySelector(`#units select.gold-decision[data-span='${id}']`)"
        "?.value === 'QUASI'",
        arg=span.pk,
    )


def _wait_until(page, condition):
    for _ in range(400):
        if condition():
            return
        page.wait_for_timeout(25)
    raise AssertionError("the condition never held")


def _gold_decision_is(page, span_id, decision):
    """Wait until gold as the page holds it and its table row show ``decision``."""
    page.wait_for_function(
        """([id, decision]) =>
            window.__review.state.editor.span(id)?.identifier_type === decision &&
            document.querySelector(`#units select.gold-decision[data-span='${id}']`)
                ?.value === decision""",
        arg=[span_id, decision],
    )


def test_a_failed_gold_save_reloads_gold_and_publication_waits_for_it(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-11")
    _member(document.project, "rita", Role.REVIEWER)
    _annotated(document, "alice", [(NAME, "PERSON", "DIRECT")])
    (span,) = _gold_with(document, [(NAME, "PERSON", "DIRECT")])
    gold = span.annotation_set
    _open_review(page, live_server, document)
    # One handler for the whole test, switched by ``mode``: replacing a route while the
    # page runs could let a request slip past both.
    mode = {"now": "hold"}
    held, aborted = [], []

    def handle(route):
        if mode["now"] == "hold":
            held.append(route)
        elif mode["now"] == "abort":
            aborted.append(route)
            route.abort()
        else:
            route.continue_()

    page.route("**/api/spans/*/update/", handle)

    # The save is in flight when the reviewer publishes; then the server fails it (502).
    page.click(f"#doc .seg[data-k='g{span.pk}']")
    page.wait_for_selector("#gold-panel #gold-identifier_type")
    page.keyboard.press("x")  # NO_MASK
    page.click("#publish")
    page.wait_for_selector("#message:has-text('Waiting for the gold changes to be saved')")
    _wait_until(page, lambda: held)
    held[0].fulfill(status=502, json={"detail": "Bad gateway (test)"})
    page.wait_for_selector("#message:has-text('Not published, because a gold change failed')")
    assert "Bad gateway (test)" in page.text_content("#message")
    _gold_decision_is(page, span.pk, "DIRECT")  # reloaded: what the server holds
    gold.refresh_from_db()
    assert gold.published_at is None
    span.refresh_from_db()
    assert (span.identifier_type, span.version) == ("DIRECT", 1)
    assert page.get_attribute("#gold-status", "data-published") == "false"

    # The network fails: the same. (The publication message above also says "Not
    # saved", so the wait is for a message that starts with it.)
    mode["now"] = "abort"
    page.keyboard.press("x")
    page.wait_for_function(
        "() => document.querySelector('#message').textContent.startsWith('Not saved:')"
    )
    assert len(aborted) == 1
    _gold_decision_is(page, span.pk, "DIRECT")
    span.refresh_from_db()
    assert span.identifier_type == "DIRECT"

    # Gold as the server holds it is what gets published.
    mode["now"] = "pass"
    page.click("#publish")
    page.wait_for_selector("#gold-status[data-published='true']")
    gold.refresh_from_db()
    assert gold.published_at is not None
    span.refresh_from_db()
    assert span.identifier_type == "DIRECT"
    assert len(held) == 1 and len(aborted) == 1


def test_a_gold_change_made_while_gold_reloads_is_not_hidden_by_the_older_copy(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-11b")
    _member(document.project, "rita", Role.REVIEWER)
    _annotated(document, "alice", [(NAME, "PERSON", "DIRECT")])
    (span,) = _gold_with(document, [(NAME, "PERSON", "DIRECT")])
    _open_review(page, live_server, document)
    mode = {"update": "fail", "workspace": "old copy"}
    workspaces = []

    def update(route):
        if mode["update"] == "fail":
            mode["update"] = "pass"
            route.fulfill(status=502, json={"detail": "Bad gateway (test)"})
        else:
            route.continue_()

    def workspace(route):
        # The reload's first fetch answers with gold as it was when the fetch was made;
        # the answer is held back until the reviewer has made (and saved) a change.
        workspaces.append(route)
        if mode["workspace"] == "old copy":
            mode["workspace"] = "pass"
            workspaces.append(route.fetch())
        else:
            route.continue_()

    page.route("**/api/spans/*/update/", update)
    page.route("**/api/documents/*/workspace/", workspace)
    page.click(f"#doc .seg[data-k='g{span.pk}']")
    page.wait_for_selector("#gold-panel #gold-identifier_type")
    page.keyboard.press("x")  # NO_MASK, refused: gold is reloaded
    _wait_until(page, lambda: len(workspaces) == 2)
    page.keyboard.press("q")  # QUASI while the reload is under way: saved
    _wait_until(page, lambda: _identifier_type(span.pk) == "QUASI")
    old_route, old_copy = workspaces
    # The page's own copy of the span already says QUASI (the change was made there):
    # marked, so that the wait below is for gold as the reload brings it.
    page.evaluate("(id) => { window.__review.state.editor.span(id).localCopy = true; }", span.pk)
    old_route.fulfill(response=old_copy)  # DIRECT, from before the change
    # The reload saw the change and fetched again: the page shows what the server holds.
    _wait_until(page, lambda: len(workspaces) == 3)
    page.wait_for_function(
        "(id) => { const s = window.__review.state.editor.span(id); return s && !s.localCopy; }",
        arg=span.pk,
    )
    _gold_decision_is(page, span.pk, "QUASI")
    assert _identifier_type(span.pk) == "QUASI"


def _identifier_type(span_id):
    return Span.objects.get(pk=span_id).identifier_type
