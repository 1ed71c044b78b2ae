"""The editor's keyboard, undo history, autosave and conflict handling in a real
Chromium; the database is checked for what each step meant."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import F

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
from tests.frontend.browser import browser, login, page, wait_ready
from tests.frontend.sample import ANKARA, DATE, NAME

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ON = SAMPLE_TEXT.index("on 12 March 1997")


def _saved(page: Any) -> None:
    page.wait_for_function(
        "document.querySelector('#save-status').textContent === 'All changes saved'",
        timeout=10_000,
    )


def _select(page: Any, key: str) -> None:
    page.evaluate("(key) => window.__editor.select(key)", key)


def _own_key(page: Any, start: int) -> str:
    key: str = page.evaluate(
        "(start) => window.__editor.store.own().find((s) => s.start === start).key", start
    )
    return key


def test_keys_undo_autosave_and_conflicts(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="keys")
    alice = UserFactory.create(username="alice")
    MembershipFactory.create(project=document.project, user=alice, role=Role.ANNOTATOR)
    AssignmentFactory.create(document=document, user=alice)
    machine = AnnotationSetFactory.create(
        document=document, kind=SetKind.MACHINE, annotator=None, source_name="rules"
    )
    name = SpanFactory.create(annotation_set=machine, start=NAME[0], end=NAME[1])
    ankara = SpanFactory.create(
        annotation_set=machine,
        start=ANKARA[0],
        end=ANKARA[1],
        entity_type="LOC",
        identifier_type="QUASI",
    )
    own = AnnotationSetFactory.create(
        document=document, annotator=alice, status=SetStatus.IN_PROGRESS
    )
    date = SpanFactory.create(
        annotation_set=own,
        start=DATE[0],
        end=DATE[1],
        entity_type="DATETIME",
        identifier_type="QUASI",
    )

    login(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)
    assert page.text_content("#counts") == "1 spans · 2 unreviewed suggestions"

    # A decision key on a suggestion accepts it with that decision.
    page.keyboard.press("]")
    assert page.get_attribute(f"#doc .seg[data-k='m{name.pk}']", "class").count(" sel") == 1
    page.keyboard.press("2")
    _saved(page)
    accepted = own.spans.get(start=NAME[0])
    assert (accepted.identifier_type, accepted.attrs["accepted_from"]) == ("QUASI", name.pk)
    assert page.text_content("#counts") == "2 spans · 1 unreviewed suggestions"

    # Rejecting is recorded at once.
    page.keyboard.press("]")
    with page.expect_response(lambda r: "/rejections/" in r.url):
        page.keyboard.press("r")
    assert "rejected" in page.get_attribute(f"#doc .seg[data-k='m{ankara.pk}']", "class")
    assert AnnotationSet.objects.get(pk=own.pk).parameters["rejected_suggestions"] == [ankara.pk]

    # Deleting and undoing before the save keeps the server's row (same id).
    _select(page, f"s{date.pk}")
    page.keyboard.press("Delete")
    assert page.locator(f"#doc .seg[data-k='s{date.pk}']").count() == 0
    page.keyboard.press("z")
    _saved(page)
    assert list(own.spans.filter(start=DATE[0]).values_list("pk", flat=True)) == [date.pk]

    # Alt+← extends the start by a token; undo and redo go through the same saves.
    page.keyboard.press("Alt+ArrowLeft")
    _saved(page)
    assert Span.objects.get(pk=date.pk).start == ON
    page.keyboard.press("Control+z")
    _saved(page)
    assert Span.objects.get(pk=date.pk).start == DATE[0]
    page.keyboard.press("y")
    _saved(page)
    assert Span.objects.get(pk=date.pk).start == ON
    page.keyboard.press("z")
    _saved(page)

    # g links the selected mention to the previously selected one's entity; Shift+X
    # decides NO_MASK for every mention of it.
    _select(page, _own_key(page, NAME[0]))
    _select(page, f"s{date.pk}")
    page.keyboard.press("g")
    page.keyboard.press("Shift+X")
    _saved(page)
    rows = list(own.spans.order_by("start").values_list("entity_id", "identifier_type"))
    assert rows[0][0] and rows[0] == rows[1]
    assert rows[0][1] == "NO_MASK"

    # Someone else changes the date meanwhile: the next save conflicts; take theirs.
    Span.objects.filter(pk=date.pk).update(identifier_type="DIRECT", version=F("version") + 1)
    page.keyboard.press("2")
    page.wait_for_selector("#conflicts .conflict")
    assert page.text_content("#save-status") == "Conflict: choose a version"
    page.click("#conflicts .take-theirs")
    _saved(page)
    assert page.is_hidden("#conflicts")
    assert "i-DIRECT" in page.get_attribute(f"#doc .seg[data-k='s{date.pk}']", "class")
    assert Span.objects.get(pk=date.pk).identifier_type == "DIRECT"

    # Again, but keep mine: it is written over theirs.
    Span.objects.filter(pk=date.pk).update(entity_type="MISC", version=F("version") + 1)
    page.keyboard.press("c")  # CODE
    page.wait_for_selector("#conflicts .conflict")
    page.click("#conflicts .keep-mine")
    _saved(page)
    assert Span.objects.get(pk=date.pk).entity_type == "CODE"
