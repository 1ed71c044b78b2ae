"""Release and polish in a real Chromium against the live server: the masked preview's
styles with numbered placeholders per entity, the colour key, and logging out."""

from __future__ import annotations

from typing import Any

import pytest

from annotation.models import Role, SemanticType, SetStatus, Span
from tests.factories import (
    AnnotationSetFactory,
    AssignmentFactory,
    DocumentFactory,
    MembershipFactory,
    SpanFactory,
    UserFactory,
)
from tests.frontend.browser import browser, login, page, screenshot, wait_ready

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = (
    "The applicant, Mr Galip Yalman, was born in 1945 in Ankara. "
    "His lawyer, Ms Ayse Demir, met Mr Yalman in Izmir on 12 March 1997."
)
SECOND_YALMAN = TEXT.index("Mr Yalman") + 3


def _span(annotation_set: Any, start: int, word: str, entity_type: str, **fields: Any) -> Span:
    assert TEXT[start : start + len(word)] == word
    return SpanFactory.create(
        annotation_set=annotation_set,
        start=start,
        end=start + len(word),
        entity_type=entity_type,
        **fields,
    )


@pytest.fixture
def editor_setup() -> dict[str, Any]:
    document = DocumentFactory.create(text=TEXT, external_id="lawyer")
    alice = UserFactory.create(username="alice")
    MembershipFactory.create(project=document.project, user=alice, role=Role.ANNOTATOR)
    AssignmentFactory.create(document=document, user=alice)
    own = AnnotationSetFactory.create(
        document=document, annotator=alice, status=SetStatus.IN_PROGRESS
    )
    _span(own, TEXT.index("Galip Yalman"), "Galip Yalman", "PERSON", entity_id="yalman")
    _span(own, TEXT.index("Ayse Demir"), "Ayse Demir", "PERSON", entity_id="demir")
    # The second mention of Mr Yalman is not linked yet.
    second = _span(own, SECOND_YALMAN, "Yalman", "PERSON")
    _span(own, TEXT.index("Ankara"), "Ankara", "LOC", identifier_type="QUASI")
    _span(own, TEXT.index("Izmir"), "Izmir", "LOC", identifier_type="QUASI")
    return {"document": document, "second": second}


def _preview(page: Any, style: str) -> str:
    page.select_option("#preview-style", style)
    page.wait_for_function(
        """(style) => {
            const node = document.querySelector('#preview');
            return node.dataset.state === 'ready' && node.dataset.style === style;
        }""",
        arg=style,
    )
    return page.text_content("#preview")


def _placeholders(page: Any) -> list[tuple[str, str]]:
    return page.eval_on_selector_all(
        "#preview .ph", "nodes => nodes.map(n => [n.textContent, n.dataset.type])"
    )


def test_preview_styles_and_numbered_placeholders_follow_coreference(
    live_server: Any, page: Any, editor_setup: dict[str, Any]
) -> None:
    document, second = editor_setup["document"], editor_setup["second"]
    login(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)

    page.keyboard.press("v")
    page.wait_for_selector("#preview[data-state='ready']")
    assert page.is_visible("#preview-bar")
    assert page.input_value("#preview-style") == "type"
    assert page.eval_on_selector_all("#preview-style option", "os => os.map(o => o.value)") == [
        "stars",
        "mask",
        "type",
        "numbered",
    ]
    assert "Mr [PERSON], was born in 1945 in [LOC]." in page.text_content("#preview")

    numbered = _preview(page, "numbered")
    assert numbered == (
        "The applicant, Mr [PERSON 1], was born in 1945 in [LOC 1]. "
        "His lawyer, Ms [PERSON 2], met Mr [PERSON 3] in [LOC 2] on 12 March 1997."
    )
    # Each placeholder is highlighted in its type's colour.
    assert _placeholders(page) == [
        ["[PERSON 1]", "PERSON"],
        ["[LOC 1]", "LOC"],
        ["[PERSON 2]", "PERSON"],
        ["[PERSON 3]", "PERSON"],
        ["[LOC 2]", "LOC"],
    ]
    colours = page.evaluate(
        """() => ['PERSON', 'LOC'].map((t) => [
            `#preview .ph[data-type='${t}']`, `#colour-key [data-type='${t}']`,
        ].map((css) => getComputedStyle(document.querySelector(css)).borderBottomColor))"""
    )
    for placeholder_colour, key_colour in colours:
        assert placeholder_colour == key_colour
    assert colours[0][0] != colours[1][0]

    # Linking the second "Yalman" to Mr Yalman's entity gives it his number.
    page.evaluate(f"window.__editor.select('s{second.pk}')")
    page.fill("#panel-entity", "yalman")
    page.press("#panel-entity", "Tab")
    page.wait_for_function(
        "document.querySelector('#preview').dataset.state === 'ready'"
        " && document.querySelector('#preview').textContent.includes('met Mr [PERSON 1] in')"
    )
    assert page.text_content("#preview") == (
        "The applicant, Mr [PERSON 1], was born in 1945 in [LOC 1]. "
        "His lawyer, Ms [PERSON 2], met Mr [PERSON 1] in [LOC 2] on 12 March 1997."
    )
    screenshot(page, "masked-preview-numbered")
    page.wait_for_selector("#save-status.ok", timeout=10_000)
    second.refresh_from_db()
    assert second.entity_id == "yalman"

    assert _preview(page, "stars").startswith("The applicant, Mr ***, was born in 1945 in ***.")
    assert [text for text, _ in _placeholders(page)] == ["***"] * 5
    assert _preview(page, "mask").endswith("Ms [MASK], met Mr [MASK] in [MASK] on 12 March 1997.")

    # The chosen style is kept across page loads.
    page.reload()
    wait_ready(page)
    assert page.input_value("#preview-style") == "mask"


def _colour_key(page: Any) -> list[tuple[str, str]]:
    return page.eval_on_selector_all(
        "#colour-key [data-type]",
        "nodes => nodes.map(n => [n.dataset.type, getComputedStyle(n).borderBottomColor])",
    )


def test_colour_key_on_the_editor_and_review_pages(
    live_server: Any, page: Any, editor_setup: dict[str, Any]
) -> None:
    document = editor_setup["document"]
    reviewer = UserFactory.create(username="rita")
    MembershipFactory.create(project=document.project, user=reviewer, role=Role.REVIEWER)
    login(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)

    key = _colour_key(page)
    assert [name for name, _ in key] == SemanticType.values
    assert len({colour for _, colour in key}) == 8  # one colour per type
    # The key draws each type as the text draws a DIRECT span of it.
    text_colours = page.evaluate(
        """() => Object.fromEntries(['PERSON', 'LOC'].map((t) => {
            const seg = document.querySelector(`#doc .seg.L-own.t-${t}`);
            return [t, getComputedStyle(seg).borderBottomColor];
        }))"""
    )
    assert text_colours == {name: colour for name, colour in key if name in text_colours}

    page.click("#logout-form button")
    page.wait_for_url(f"{live_server.url}/accounts/login/")
    login(page, live_server.url, "rita")
    page.goto(f"{live_server.url}/documents/{document.pk}/review/")
    page.wait_for_selector("#colour-key [data-type='MISC']")
    assert _colour_key(page) == key


def test_logout_lands_on_the_apps_login_page(live_server: Any, page: Any) -> None:
    UserFactory.create(username="bob")
    login(page, live_server.url, "bob")

    page.click("#logout-form button")

    page.wait_for_url(f"{live_server.url}/accounts/login/")
    assert page.text_content("h1") == "Log in"
    assert "quality time" not in page.content()
    assert page.locator("#logout-form").count() == 0
    screenshot(page, "logged-out")
    # Logged out for real: the queue asks to log in again.
    page.goto(f"{live_server.url}/")
    page.wait_for_url(f"{live_server.url}/accounts/login/?next=/")
