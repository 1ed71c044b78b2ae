"""The editor loses nothing, in a real Chromium against the live server: Back/Forward
shows the saved state, edits to spans deleted elsewhere are shown as not saved, a
double accept leaves one span, conflicts are resolved per field without lowering a
decision, and an ended session keeps the edits until the annotator logs in again.
Each scenario checks what the database holds."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.sessions.models import Session

from annotation.models import AnnotationSet, Role, SetKind, SetStatus, Span
from tests.factories import (
    SAMPLE_TEXT,
    AnnotationSetFactory,
    AssignmentFactory,
    DocumentFactory,
    MembershipFactory,
    SpanFactory,
    UserFactory,
)
from tests.frontend.browser import PASSWORD, browser, login, page, wait_ready
from tests.frontend.sample import DATE, NAME

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STATUS = "document.querySelector('#save-status').textContent"


def _saved(page: Any) -> None:
    page.wait_for_function(f"{STATUS} === 'All changes saved'", timeout=15_000)


def _status(page: Any) -> str:
    text: str = page.evaluate(STATUS)
    return text


def _select(page: Any, key: str) -> None:
    page.evaluate("(key) => window.__editor.select(key)", key)


def _classes(page: Any, key: str) -> str:
    return page.get_attribute(f"#doc .seg[data-k~='{key}']", "class") or ""


def _open(page: Any, url: str, document_id: int) -> None:
    page.goto(f"{url}/documents/{document_id}/annotate/")
    wait_ready(page)


def _tabs(page: Any, url: str, document_id: int) -> Any:
    """Log alice in and open the document in ``page`` and in a second tab; the tab."""
    login(page, url, "alice")
    _open(page, url, document_id)
    other = page.context.new_page()
    _open(other, url, document_id)
    return other


def _edit(tab: Any, key: str, press: str) -> None:
    """Select the span, press the key, wait for the save."""
    _select(tab, key)
    tab.keyboard.press(press)
    _saved(tab)


def _world(identifier_type: str = "QUASI", machine: bool = False) -> dict[str, Any]:
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="safety")
    alice = UserFactory.create(username="alice")
    MembershipFactory.create(project=document.project, user=alice, role=Role.ANNOTATOR)
    AssignmentFactory.create(document=document, user=alice)
    own = AnnotationSetFactory.create(
        document=document, annotator=alice, status=SetStatus.IN_PROGRESS
    )
    date = SpanFactory.create(
        annotation_set=own,
        start=DATE[0],
        end=DATE[1],
        entity_type="DATETIME",
        identifier_type=identifier_type,
    )
    world = {"document": document, "own": own, "date": date}
    if machine:
        suggestions = AnnotationSetFactory.create(
            document=document, kind=SetKind.MACHINE, annotator=None, source_name="rules"
        )
        world["name"] = SpanFactory.create(
            annotation_set=suggestions, start=NAME[0], end=NAME[1], identifier_type="DIRECT"
        )
    return world


def _alice_opens(page: Any, url: str) -> tuple[dict[str, Any], str]:
    """A world (_world) with alice logged in on its document; the world, the date's key."""
    world = _world()
    login(page, url, "alice")
    _open(page, url, world["document"].pk)
    return world, f"s{world['date'].pk}"


def test_back_and_forward_after_an_edit_show_the_saved_state(live_server, page):
    world, key = _alice_opens(page, live_server.url)
    date = world["date"]
    _edit(page, key, "1")  # DIRECT
    assert Span.objects.get(pk=date.pk).identifier_type == "DIRECT"

    page.goto(f"{live_server.url}/")
    page.go_back()
    wait_ready(page)
    page.wait_for_function(
        "(key) => window.__editor.store.get(key).identifier_type === 'DIRECT'", arg=key
    )
    assert "i-DIRECT" in _classes(page, key)
    assert _status(page) == "All changes saved"

    # The next edit builds on the saved version: no conflict.
    _edit(page, key, "c")  # CODE
    assert page.is_hidden("#conflicts")
    page.go_forward()
    page.wait_for_url(f"{live_server.url}/")
    page.go_back()
    wait_ready(page)
    page.wait_for_function(
        "(key) => window.__editor.store.get(key).entity_type === 'CODE'", arg=key
    )
    _edit(page, key, "3")  # NO_MASK
    assert page.is_hidden("#conflicts")
    span = Span.objects.get(pk=date.pk)
    assert (span.entity_type, span.identifier_type, span.version) == ("CODE", "NO_MASK", 4)


def test_an_edit_to_a_span_deleted_in_another_tab_is_shown_as_a_conflict(live_server, page):
    world = _world()
    date = world["date"]
    key = f"s{date.pk}"
    other = _tabs(page, live_server.url, world["document"].pk)
    _edit(other, key, "Delete")
    assert not Span.objects.filter(pk=date.pk).exists()

    _select(page, key)
    page.keyboard.press("1")
    page.wait_for_selector("#conflicts .conflict")
    assert _status(page) == "Conflict: choose a version"
    assert "deleted elsewhere" in page.text_content("#conflicts")
    assert "save-conflict" in _classes(page, key)
    assert not world["own"].spans.exists()

    # Keeping mine saves it again, with the decision made meanwhile.
    page.click("#conflicts .keep-mine")
    _saved(page)
    assert "save-conflict" not in _classes(page, key)
    (span,) = world["own"].spans.all()
    assert (span.start, span.end, span.identifier_type) == (DATE[0], DATE[1], "DIRECT")


def test_a_refused_save_marks_the_span_unsaved(live_server, page):
    world, key = _alice_opens(page, live_server.url)
    # Reviewed meanwhile: the set is closed and the server refuses the edit (400).
    AnnotationSet.objects.filter(pk=world["own"].pk).update(status=SetStatus.REVIEWED)
    _select(page, key)
    page.keyboard.press("1")
    page.wait_for_function(f"{STATUS}.startsWith('Not saved')")
    assert "closed" in _status(page)
    assert "save-unsaved" in _classes(page, key)
    assert Span.objects.get(pk=world["date"].pk).identifier_type == "QUASI"


def test_a_double_accept_leaves_one_span(live_server, page):
    world = _world(machine=True)
    name = world["name"]
    second_tab = _tabs(page, live_server.url, world["document"].pk)

    _select(page, f"m{name.pk}")
    page.keyboard.press("a")
    _saved(page)
    own_key = page.evaluate("window.__editor.store.selected")
    # Clicking the accepted span again cycles to the suggestion under it; accept again.
    page.click(f"#doc .seg[data-k~='{own_key}']")
    assert page.evaluate("window.__editor.store.selected") == f"m{name.pk}"
    page.keyboard.press("a")
    _saved(page)
    assert page.evaluate("window.__editor.store.selected") == own_key
    page.keyboard.press("3")  # the own span's decision, explicitly
    _saved(page)
    assert list(world["own"].spans.filter(start=NAME[0]).values_list("identifier_type")) == [
        ("NO_MASK",)
    ]
    assert (
        page.evaluate(f"window.__editor.store.own().filter((s) => s.start === {NAME[0]}).length")
        == 1
    )

    # The other tab, loaded before, accepts too: the server answers with the span that is
    # there, and keeping "my changes" never raises a second one (nor lowers a decision).
    _select(second_tab, f"m{name.pk}")
    second_tab.keyboard.press("a")
    second_tab.wait_for_selector("#conflicts .conflict")
    decision = second_tab.locator("#conflicts tr[data-field='decision'] input:checked")
    assert decision.get_attribute("value") == "mine"  # DIRECT (suggested) over NO_MASK
    second_tab.click("#conflicts .keep-mine")
    _saved(second_tab)
    assert list(world["own"].spans.filter(start=NAME[0]).values_list("identifier_type")) == [
        ("DIRECT",)
    ]
    assert world["own"].spans.count() == 2  # the date and the name


def test_conflicts_are_resolved_per_field_without_lowering_a_decision(live_server, page):
    world = _world(identifier_type="NO_MASK")
    date = world["date"]
    key = f"s{date.pk}"
    other = _tabs(page, live_server.url, world["document"].pk)
    _edit(other, key, "1")  # the other tab: DIRECT

    _select(page, key)
    page.keyboard.press("c")  # mine: only the type
    page.wait_for_selector("#conflicts .conflict")
    rows = page.locator("#conflicts tr[data-field]")
    assert sorted(rows.evaluate_all("rows => rows.map((r) => r.dataset.field)")) == [
        "decision",
        "type",
    ]
    assert "NO_MASK" in page.text_content("#conflicts tr[data-field='decision']")
    assert "DIRECT" in page.text_content("#conflicts tr[data-field='decision']")
    page.click("#conflicts .keep-mine")
    _saved(page)
    span = Span.objects.get(pk=date.pk)
    assert (span.entity_type, span.identifier_type) == ("CODE", "DIRECT")
    assert "i-DIRECT" in _classes(page, key)

    # A weaker decision is saved only when chosen explicitly.
    other.reload()
    wait_ready(other)
    _edit(other, key, "i")  # MISC
    _select(page, key)
    page.keyboard.press("2")  # mine: QUASI
    page.wait_for_selector("#conflicts .conflict")
    chosen = page.locator("#conflicts tr[data-field='decision'] input:checked")
    assert chosen.get_attribute("value") == "theirs"  # DIRECT stays preselected
    page.check("#conflicts tr[data-field='decision'] input[value='mine']")
    page.click("#conflicts .apply-choices")
    _saved(page)
    span = Span.objects.get(pk=date.pk)
    assert (span.entity_type, span.identifier_type) == ("MISC", "QUASI")


def test_an_ended_session_offers_a_login_and_saves_after_it(live_server, page):
    world, key = _alice_opens(page, live_server.url)
    date = world["date"]
    Session.objects.all().delete()  # the session expires

    _select(page, key)
    page.keyboard.press("1")
    link = page.locator("#save-status a")
    link.wait_for(timeout=15_000)
    assert "session has ended" in _status(page)
    page.keyboard.press("c")  # more edits while logged out stay queued
    assert "session has ended" in _status(page)
    assert Span.objects.get(pk=date.pk).identifier_type == "QUASI"

    with page.expect_popup() as popup_info:
        link.click()
    login_tab = popup_info.value
    login_tab.wait_for_selector("input[name=username]")
    login_tab.fill("input[name=username]", "alice")
    login_tab.fill("input[name=password]", PASSWORD)
    login_tab.click("button[type=submit]")
    login_tab.wait_for_url(f"{live_server.url}/")

    _saved(page)
    span = Span.objects.get(pk=date.pk)
    assert (span.identifier_type, span.entity_type) == ("DIRECT", "CODE")


RESTORE = "() => window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))"


def test_a_page_restored_from_history_keeps_refused_work_instead_of_reloading(live_server, page):
    # Chromium keeps no page served with no-store in its back-forward cache, so the
    # restore is the event it would fire: pageshow with persisted set.
    world, key = _alice_opens(page, live_server.url)
    date = world["date"]
    refusal = {"status": 400, "json": {"detail": "refused by the test"}}
    page.route("**/api/spans/*/update/", lambda route: route.fulfill(**refusal))
    _select(page, key)
    page.keyboard.press("1")  # DIRECT, refused
    page.wait_for_function(f"{STATUS}.startsWith('Not saved')")
    page.evaluate("() => { window.__before_restore = true; }")

    page.evaluate(RESTORE)
    page.wait_for_function(f"{STATUS}.includes('Restored from history')")
    wait_ready(page)
    # Not reloaded: the same page, the refused edit still shown and marked.
    assert page.evaluate("() => window.__before_restore") is True
    assert "may be out of date" in _status(page)
    assert "Not saved" in _status(page)
    assert "save-unsaved" in _classes(page, key)
    assert "i-DIRECT" in _classes(page, key)
    assert page.evaluate("(key) => window.__editor.store.get(key).identifier_type", key) == (
        "DIRECT"
    )
    assert Span.objects.get(pk=date.pk).identifier_type == "QUASI"

    # Saved at last, the notice stays (the page is still the restored one) ...
    page.unroute("**/api/spans/*/update/")
    page.keyboard.press("c")  # CODE: the refused decision is tried again with it
    page.wait_for_function(f"{STATUS}.startsWith('All changes saved')", timeout=15_000)
    assert "restored from history" in _status(page)
    span = Span.objects.get(pk=date.pk)
    assert (span.identifier_type, span.entity_type) == ("DIRECT", "CODE")
    # ... and with nothing left unresolved a restore loads the page from the server.
    with page.expect_navigation():
        page.evaluate(RESTORE)
    wait_ready(page)
    assert page.evaluate("() => window.__before_restore") is None
    assert _status(page) == "All changes saved"
    assert "i-DIRECT" in _classes(page, key)
