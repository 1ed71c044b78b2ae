"""The reviewer's page in a real Chromium against the live server: every version in the
text, gold edited with the editor's keys, adopting a whole set, the warning before
publishing undecided regions, sets in progress left out, no annotator set for a
reviewer, and gold shown read-only to annotators after publication. The database is
checked for exactly what the clicks and keys meant."""

from __future__ import annotations

import pytest

from annotation.models import AnnotationSet, Role, SetKind, SetStatus
from tests.factories import (
    SAMPLE_TEXT,
    AnnotationSetFactory,
    AssignmentFactory,
    DocumentFactory,
    SpanFactory,
)
from tests.frontend.browser import browser, login, page, screenshot, wait_ready
from tests.frontend.sample import ANKARA, DATE, NAME
from tests.frontend.test_browser_annotate_review import _member

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _annotated(document, name, spans, status=SetStatus.SUBMITTED):
    user = _member(document.project, name, Role.ANNOTATOR)
    annotation_set = AnnotationSetFactory.create(document=document, annotator=user, status=status)
    for (start, end), entity_type, decision in spans:
        SpanFactory.create(
            annotation_set=annotation_set,
            start=start,
            end=end,
            entity_type=entity_type,
            identifier_type=decision,
        )
    return annotation_set


def _two_annotators(document):
    """alice and bob agree on the name and disagree on Ankara's decision."""
    alice = _annotated(document, "alice", [(NAME, "PERSON", "DIRECT"), (ANKARA, "LOC", "QUASI")])
    bob = _annotated(document, "bob", [(NAME, "PERSON", "DIRECT"), (ANKARA, "LOC", "NO_MASK")])
    return alice, bob


def _open_review(page, live_server, document, username="rita"):
    login(page, live_server.url, username)
    page.goto(f"{live_server.url}/documents/{document.pk}/review/")
    wait_ready(page)


def _settled(page):
    page.evaluate("() => window.__review.state.editor.settled()")


def _select_in_text(page, start, end):
    """Select characters ``start``..``end`` of the review page's text, as a drag would."""
    page.evaluate(
        """([start, end]) => {
            const view = window.__review.state.view;
            const [a, i] = view.positionOf(start);
            const [b, j] = view.positionOf(end);
            const range = document.createRange();
            range.setStart(a, i);
            range.setEnd(b, j);
            const selection = window.getSelection();
            selection.removeAllRanges();
            selection.addRange(range);
            const up = new MouseEvent("mouseup", {bubbles: true});
            document.querySelector("#doc").dispatchEvent(up);
        }""",
        [start, end],
    )


def _gold_rows(document):
    gold = AnnotationSet.objects.get(document=document, kind=SetKind.GOLD)
    return list(
        gold.spans.order_by("start").values_list(
            "start", "end", "text", "entity_type", "identifier_type"
        )
    )


def test_reviewer_shows_every_version_and_edits_gold_with_keys(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-1")
    _member(document.project, "rita", Role.REVIEWER)
    alice, bob = _two_annotators(document)
    machine = AnnotationSetFactory.create(
        document=document, kind=SetKind.MACHINE, annotator=None, source_name="rules"
    )
    SpanFactory.create(annotation_set=machine, start=DATE[0], end=DATE[1], entity_type="DATETIME")
    _open_review(page, live_server, document)

    # Every version can be shown in the text, not only the disagreement regions.
    options = page.eval_on_selector_all("#display option", "os => os.map(o => o.textContent)")
    assert options == [
        "Disagreement regions",
        "Gold (empty, edit)",
        "alice",
        "bob",
        "machine:rules (machine)",
    ]
    expected = {
        str(alice.pk): ("human", ["Galip Yalman", "Ankara"]),
        str(bob.pk): ("human", ["Galip Yalman", "Ankara"]),
        str(machine.pk): ("machine", ["12 March 1997"]),
        "disagreements": ("dis", ["Ankara"]),
    }
    for value, (layer, texts) in expected.items():
        page.select_option("#display", value)
        page.wait_for_selector(f"#doc[data-display='{value}']")
        shown = page.eval_on_selector_all(
            f"#doc .seg.L-{layer}", "ss => ss.map(s => s.textContent)"
        )
        assert shown == texts, value
    bob_ankara = bob.spans.get(start=ANKARA[0])
    assert "NO_MASK" in page.get_attribute("#units td[data-set='bob'] .chip.i-NO_MASK", "class")
    assert bob_ankara.identifier_type == "NO_MASK"

    # "Adopt all from bob": one action, gold is bob's version of every region.
    page.select_option("#adopt-all-source", str(bob.pk))
    page.click("#adopt-all")
    page.wait_for_function("document.querySelectorAll('#units select.gold-decision').length === 2")
    assert _gold_rows(document) == [
        (NAME[0], NAME[1], "Galip Yalman", "PERSON", "DIRECT"),
        (ANKARA[0], ANKARA[1], "Ankara", "LOC", "NO_MASK"),
    ]
    page.wait_for_selector("#unresolved[data-count='0']")

    # Gold in the text: select Ankara, change type and decision by keys, extend its start.
    page.select_option("#display", "gold")
    gold_ankara = AnnotationSet.objects.get(document=document, kind=SetKind.GOLD).spans.get(
        start=ANKARA[0]
    )
    page.click(f"#doc .seg[data-k='g{gold_ankara.pk}']")
    page.wait_for_selector("#gold-panel #gold-identifier_type")
    page.keyboard.press("o")  # ORG
    page.keyboard.press("1")  # DIRECT
    page.keyboard.press("Alt+ArrowLeft")  # start one token earlier: "in Ankara"
    _settled(page)
    screenshot(page, "reviewer-gold-edit")
    start = SAMPLE_TEXT.index("in Ankara")
    assert _gold_rows(document)[1] == (start, ANKARA[1], "in Ankara", "ORG", "DIRECT")
    assert page.text_content("#doc .seg.sel.L-gold") == "in Ankara"

    # Add a gold span by selecting text, then remove it with Delete.
    _select_in_text(page, DATE[0] + 1, DATE[1] - 2)
    _settled(page)
    page.keyboard.press("t")  # DATETIME
    _settled(page)
    rows = _gold_rows(document)
    assert rows[-1] == (DATE[0], DATE[1], "12 March 1997", "DATETIME", "QUASI")
    page.keyboard.press("Delete")
    _settled(page)
    assert len(_gold_rows(document)) == 2


def test_publishing_undecided_regions_asks_first(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-2")
    _member(document.project, "rita", Role.REVIEWER)
    alice, _bob = _two_annotators(document)
    _open_review(page, live_server, document)
    assert page.text_content("#unresolved") == "2 of 2 regions undecided in gold"
    # Decide the name only.
    page.locator("#units tr.agree td[data-set='alice'] button.adopt").click()
    page.wait_for_selector("#unresolved[data-count='1']")
    assert page.locator("#units tr.unresolved").count() == 1

    page.click("#publish")
    page.wait_for_selector("#publish-confirm[open]")
    assert "1 of 2 regions are not decided" in page.text_content("#publish-warning")
    page.click("#publish-cancel")
    gold = AnnotationSet.objects.get(document=document, kind=SetKind.GOLD)
    assert gold.published_at is None

    page.click("#publish")
    page.wait_for_selector("#publish-confirm[open]")
    page.click("#publish-force")
    page.wait_for_selector("#gold-status[data-published='true']")
    gold.refresh_from_db()
    assert gold.published_at is not None
    assert alice.spans.count() == 2


def test_sets_in_progress_are_left_out_until_asked_for(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-3")
    _member(document.project, "rita", Role.REVIEWER)
    _annotated(document, "alice", [(NAME, "PERSON", "DIRECT")])
    _annotated(document, "bob", [(NAME, "PERSON", "DIRECT")])
    _annotated(document, "carol", [(NAME, "PERSON", "QUASI")], status=SetStatus.IN_PROGRESS)
    _open_review(page, live_server, document)
    assert page.locator("#units th", has_text="carol").count() == 0
    assert page.locator("#units tr.disagree").count() == 0
    assert page.is_enabled("#complete")
    page.wait_for_selector("#agreement[data-state='ready']")
    assert page.locator("table.pairs tr").count() == 2  # header + alice × bob

    page.check("#show-in-progress")
    page.wait_for_selector("#units th:has-text('carol')")
    assert page.locator("#units tr.disagree").count() == 1
    page.wait_for_function("document.querySelectorAll('table.pairs tr').length === 4")
    screenshot(page, "reviewer-in-progress-shown")

    # The project's agreement counts them only when asked to as well.
    page.goto(f"{live_server.url}/projects/{document.project_id}/agreement/")
    wait_ready(page)
    assert page.locator("table.pairs tr").count() == 2
    page.check("#show-in-progress")
    page.wait_for_function("document.querySelectorAll('table.pairs tr').length === 4")


def test_a_reviewer_never_gets_an_annotator_set(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-4")
    reviewer = _member(document.project, "rita", Role.REVIEWER)
    _two_annotators(document)
    machine = AnnotationSetFactory.create(
        document=document, kind=SetKind.MACHINE, annotator=None, source_name="rules"
    )
    suggestion = SpanFactory.create(annotation_set=machine, start=DATE[0], end=DATE[1])
    login(page, live_server.url, "rita")
    # "Open" on the home page goes to the review page.
    page.click(f"tr[data-document-id='{document.pk}'] a.open-review")
    page.wait_for_url(f"{live_server.url}/documents/{document.pk}/review/")
    wait_ready(page)

    # In the annotators' editor, keys that would annotate change nothing.
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)
    page.click(f"#doc .seg[data-k='m{suggestion.pk}']")
    for key in ("a", "1", "p", "Delete"):
        page.keyboard.press(key)
    page.evaluate("() => window.__editor.flush()")
    assert page.is_disabled("#panel-decision")
    # And the server refuses to make one even when asked directly.
    status = page.evaluate(
        """async (id) => {
            const token = document.cookie.match(/csrftoken=([^;]+)/)[1];
            const response = await fetch(`/api/documents/${id}/annotation-sets/mine/`, {
                method: "POST", headers: {"X-CSRFToken": token},
            });
            return response.status;
        }""",
        document.pk,
    )
    assert status == 403
    assert not AnnotationSet.objects.filter(annotator=reviewer).exists()


def test_annotator_sees_gold_read_only_after_publication(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-5")
    alice, bob = _two_annotators(document)
    AssignmentFactory.create(document=document, user=alice.annotator)
    gold = AnnotationSetFactory.create(document=document, kind=SetKind.GOLD, annotator=None)
    SpanFactory.create(
        annotation_set=gold,
        start=ANKARA[0],
        end=ANKARA[1],
        entity_type="LOC",
        identifier_type="DIRECT",
    )
    login(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)
    assert page.is_hidden("#versions")  # not published: nothing else to see

    gold.published_at = gold.created_at
    gold.save()
    AnnotationSet.objects.filter(kind=SetKind.HUMAN, document=document).update(
        status=SetStatus.REVIEWED
    )
    page.reload()
    wait_ready(page)
    options = page.eval_on_selector_all(
        "#version-switch option", "os => os.map(o => o.textContent)"
    )
    assert options == ["My annotation", "Gold (published)", "bob"]
    page.select_option("#version-switch", str(gold.pk))
    page.wait_for_selector("#published-doc .seg.L-gold")
    assert page.is_hidden("#doc")
    assert page.text_content("#published-doc .seg.L-gold") == "Ankara"
    screenshot(page, "annotator-published-gold")
    page.select_option("#version-switch", str(bob.pk))
    page.wait_for_selector("#published-doc[data-version='bob']")
    assert page.locator("#published-doc .seg.L-human").count() == 2
    # Back in their own version nothing can be changed any more.
    page.select_option("#version-switch", "mine")
    page.click(f"#doc .seg[data-k='s{alice.spans.get(start=ANKARA[0]).pk}']")
    page.keyboard.press("3")
    page.evaluate("() => window.__editor.flush()")
    assert page.is_disabled("#panel-decision")
    assert alice.spans.get(start=ANKARA[0]).identifier_type == "QUASI"
    assert list(gold.spans.values_list("identifier_type", flat=True)) == ["DIRECT"]


def test_review_and_agreement_fit_narrow_windows_with_many_annotators(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-6")
    _member(document.project, "rita", Role.REVIEWER)
    decisions = ("DIRECT", "QUASI", "NO_MASK")
    for i in range(9):  # 36 pairs
        _annotated(
            document,
            f"annotator-with-a-long-name-{i}",
            [(NAME, "PERSON", decisions[i % 3]), (ANKARA, "LOC", decisions[(i + 1) % 3])],
        )
    login(page, live_server.url, "rita")
    overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    for width in (1024, 800):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/documents/{document.pk}/review/")
        wait_ready(page)
        page.wait_for_selector("#agreement[data-state='ready']")
        assert page.evaluate(overflow) <= 0, f"review page scrolls sideways at {width} px"
        screenshot(page, f"review-9-annotators-{width}px")
        page.goto(f"{live_server.url}/projects/{document.project_id}/agreement/")
        wait_ready(page)
        assert page.evaluate(overflow) <= 0, f"agreement page scrolls sideways at {width} px"
        chart = page.locator("#agreement svg.chart.dots").bounding_box()
        assert chart is not None and chart["height"] < 800, chart
    screenshot(page, "agreement-36-pairs-800px")


def test_a_long_table_draws_more_regions_as_it_is_scrolled(live_server, page):
    words = [f"Name{i}" for i in range(150)]
    document = DocumentFactory.create(text=" ".join(words) + ".", external_id="review-7")
    _member(document.project, "rita", Role.REVIEWER)
    starts = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
    _annotated(
        document,
        "alice",
        [((s, s + len(w)), "PERSON", "DIRECT") for s, w in zip(starts, words, strict=True)],
    )
    _open_review(page, live_server, document)
    assert page.text_content("#unit-counts") == "150 regions, 0 with disagreement, 150 shown"
    assert page.locator("#units tr[data-unit]").count() == 100
    assert "50 more regions" in page.text_content("#units tr.more")
    page.eval_on_selector("#units", "box => { box.scrollTop = box.scrollHeight; }")
    page.wait_for_function("document.querySelectorAll('#units tr[data-unit]').length === 150")
    assert page.locator("#units tr.more").count() == 0
    assert page.text_content("#units tr[data-unit='149'] a.unit-link") == "Name149"


def test_the_first_gold_span_creates_the_gold_set(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-8")
    _member(document.project, "rita", Role.REVIEWER)
    _two_annotators(document)
    _open_review(page, live_server, document)
    assert page.text_content("#gold-status") == "none yet"
    page.select_option("#display", "gold")
    page.wait_for_selector("#doc[data-display='gold']")
    _select_in_text(page, NAME[0], NAME[1])
    _settled(page)
    page.keyboard.press("p")  # PERSON
    page.keyboard.press("d")  # DIRECT
    _settled(page)
    assert _gold_rows(document) == [(NAME[0], NAME[1], "Galip Yalman", "PERSON", "DIRECT")]
    page.wait_for_selector("#unresolved[data-count='1']")
    assert page.text_content("#doc .seg.L-gold.sel") == "Galip Yalman"
    # The count may come from a (debounced) refresh that drew the table before the new
    # span reached the page; the refresh after it draws the span's row a moment later.
    page.wait_for_function("document.querySelectorAll('#units select.gold-decision').length === 1")


def _gold_with(document, spans):
    gold = AnnotationSetFactory.create(document=document, kind=SetKind.GOLD, annotator=None)
    return [
        SpanFactory.create(
            annotation_set=gold, start=start, end=end, entity_type=kind, identifier_type=decision
        )
        for (start, end), kind, decision in spans
    ]


def _answer_dialogs(page, accept):
    """Answer every confirm() with ``accept[0]``; the messages asked, in order."""
    asked = []

    def answer(dialog):
        asked.append(dialog.message)
        if accept[0]:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", answer)
    return asked


def test_replacing_the_whole_gold_set_asks_first(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-10")
    _member(document.project, "rita", Role.REVIEWER)
    spans = [(NAME, "PERSON", "DIRECT"), (ANKARA, "LOC", "QUASI")]
    _annotated(document, "alice", spans)
    bob = _annotated(document, "bob", spans)
    # Gold raised Ankara to DIRECT: adopting bob's set or completing would lower it.
    _gold_with(document, [(NAME, "PERSON", "DIRECT"), (ANKARA, "LOC", "DIRECT")])
    before = _gold_rows(document)
    _open_review(page, live_server, document)
    accept = [False]
    asked = _answer_dialogs(page, accept)

    page.select_option("#adopt-all-source", str(bob.pk))
    page.click("#adopt-all")
    page.wait_for_selector("#message:has-text('Gold left as it was')")
    assert asked == [
        "Replace all 2 gold spans with bob's version of every region? "
        "Gold's own decisions are lost."
    ]
    assert page.is_enabled("#complete")
    page.eval_on_selector("#message", "node => { node.textContent = ''; }")
    page.click("#complete")
    page.wait_for_selector("#message:has-text('Gold left as it was')")
    assert len(asked) == 2
    assert "with the annotators' unanimous version, published?" in asked[1]
    assert _gold_rows(document) == before
    gold = AnnotationSet.objects.get(document=document, kind=SetKind.GOLD)
    assert gold.published_at is None

    accept[0] = True
    page.click("#adopt-all")
    page.wait_for_selector('#message:has-text("Gold is now bob\'s version")')
    assert len(asked) == 3
    assert _gold_rows(document)[1] == (ANKARA[0], ANKARA[1], "Ankara", "LOC", "QUASI")


def test_the_publish_warning_names_annotators_still_working(live_server, page):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="review-12")
    _member(document.project, "rita", Role.REVIEWER)
    _annotated(document, "alice", [(NAME, "PERSON", "DIRECT")])
    _annotated(
        document,
        "carol",
        [(NAME, "PERSON", "DIRECT"), (ANKARA, "LOC", "QUASI")],
        status=SetStatus.IN_PROGRESS,
    )
    _gold_with(document, [(NAME, "PERSON", "DIRECT")])
    _open_review(page, live_server, document)
    page.wait_for_selector("#unresolved[data-count='0']")
    page.click("#publish")
    page.wait_for_selector("#publish-confirm[open]")
    warning = page.text_content("#publish-warning")
    assert "1 annotator still working (carol: 2 spans)" in warning
    assert "not decided" not in warning
    page.click("#publish-cancel")
    gold = AnnotationSet.objects.get(document=document, kind=SetKind.GOLD)
    assert gold.published_at is None
