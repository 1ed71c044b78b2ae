"""Re-identification in a real Chromium, against the real re-identification API: the
editor shows the person's rank among a knowledge base's candidates under the annotator's
current masks and follows every decision (masking the name lifts it from 1), suggests the
greedy masks that push it past K, lets the annotator choose the person; the review page
shows the rank each version leaves; the admin page draws the curve of a finished job.

The knowledge base comes from the synthetic generator. For the name test the person also
has "twins" (the same attributes under other names and ids): in a small knowledge base
the rest of a biography singles a person out on its own, and with twins the name is what
does, so masking it must lift the rank above 1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from annotation.models import AnnotationSet, Role, SetKind, SetSource, SetStatus, Span
from jobs.models import Job, JobStatus
from knowledge.models import KbFormat, KbStatus, KnowledgeBase
from reid.models import ReidTarget, TargetSource
from reid.selectors import document_rank, document_version_ranks
from sanitizer.kanon.synthetic import generate_dataset
from tests.factories import AssignmentFactory, DocumentFactory, MembershipFactory, UserFactory
from tests.frontend.browser import (
    browser,
    login,
    screenshot,
    select_text,
    strict_page,
    wait_ready,
)

__all__ = ["browser", "strict_page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

N_PEOPLE = 200
TWINS = 3
SAVED = "#save-status:text-is('All changes saved')"


@pytest.fixture
def page(strict_page: Any) -> Iterator[Any]:
    """The pages as served: under the app's Content-Security-Policy (which is why the
    waits here are selectors: wait_for_function's predicates need eval)."""
    yield strict_page
    assert not strict_page.csp_violations


def _dataset(tmp_path: Path, twins_of: int | None = 0) -> tuple[Path, list[dict[str, Any]]]:
    """A generated knowledge base and biographies of people in it; ``twins_of``: the
    index of the biography whose person gets TWINS twins (None: no twins)."""
    generated = generate_dataset(tmp_path / "people", N_PEOPLE, 4, seed=3)
    docs = json.loads(generated.docs_path.read_text(encoding="utf-8"))
    if twins_of is not None:
        target = docs[twins_of]["meta"]["person_id"]
        rows = [json.loads(line) for line in generated.kb_path.read_text().splitlines()]
        person = next(row for row in rows if row["id"] == target)
        with generated.kb_path.open("a", encoding="utf-8") as fh:
            for i in range(TWINS):
                twin = {**person, "id": f"TWIN{i}", "name": f"Someone Else{i} Entirely{i}"}
                fh.write(json.dumps(twin, ensure_ascii=False) + "\n")
    return generated.kb_path, docs


def _knowledge_base(project, kb_path: Path) -> KnowledgeBase:
    return KnowledgeBase.objects.create(
        name="generated people",
        project=project,
        source_format=KbFormat.JSONL,
        source_path=str(kb_path),
        status=KbStatus.READY,
        n_persons=sum(1 for _ in kb_path.open(encoding="utf-8")),
        built_at=timezone.now(),
    )


def _biography(doc: dict[str, Any], *, project=None, with_target: bool = True):
    extra = {"project": project} if project is not None else {}
    return DocumentFactory.create(
        text=doc["text"],
        external_id=doc["doc_id"],
        target_person=doc["meta"]["applicant"],
        meta={"target": doc["meta"]["person_id"]} if with_target else {},
        **extra,
    )


def _member(document, username: str, role: str):
    user = UserFactory.create(username=username)
    MembershipFactory.create(project=document.project, user=user, role=role)
    if role == Role.ANNOTATOR:
        AssignmentFactory.create(document=document, user=user)
    return user


def _name_mentions(text: str, name: str) -> list[tuple[int, int]]:
    """Every run of the person's name words in the text (full name or surname alone)."""
    words = set(name.split())
    runs: list[list[int]] = []
    for match in re.finditer(r"\w+", text):
        if match.group() not in words:
            continue
        if runs and text[runs[-1][1] : match.start()] == " ":
            runs[-1][1] = match.end()
        else:
            runs.append([match.start(), match.end()])
    return [(start, end) for start, end in runs]


def _open_editor(page, live_server, document, username: str) -> None:
    login(page, live_server.url, username)
    page.goto(f"{live_server.url}/documents/{document.pk}/annotate/")
    wait_ready(page)


def _shown_rank(page) -> dict[str, Any]:
    """The rank on screen, once it is the one for the page's current masks and K."""
    signature = page.evaluate("window.__editor.reid.signature()")
    page.wait_for_selector(f"#reid-rank[data-state='ready'][data-signature='{signature}']")
    return page.evaluate(
        """() => {
          const node = document.querySelector('#reid-rank');
          return {rank: +node.dataset.rank, n: +node.dataset.n, safe: node.dataset.safe === '1',
                  text: node.querySelector('.reid-rank-line').textContent,
                  masks: window.__editor.store.own().filter((s) => s.identifier_type !== 'NO_MASK')
                    .map((s) => [s.start, s.end])};
        }"""
    )


def test_masking_the_name_lifts_the_rank_from_1(live_server, page, tmp_path):
    kb_path, docs = _dataset(tmp_path, twins_of=0)
    doc = docs[0]
    document = _biography(doc)
    knowledge_base = _knowledge_base(document.project, kb_path)
    annotator = _member(document, "alice", Role.ANNOTATOR)
    n_candidates = N_PEOPLE + TWINS
    _open_editor(page, live_server, document, annotator.username)

    before = _shown_rank(page)
    assert before["rank"] == 1 and before["n"] == n_candidates
    assert before["text"] == f"rank 1 of {n_candidates} — re-identified"
    assert page.get_attribute("#reid-target", "data-profile") == doc["meta"]["person_id"]
    first = page.locator("#reid-top > li").first
    assert "is-target" in (first.get_attribute("class") or "")
    assert first.locator(".reid-links li").count() > 0  # what links it to the text
    assert page.locator("#reid-top > li").count() == 5
    assert page.input_value("#reid-k") == "10"

    # The annotator masks every mention of the name by selecting it (a new span is QUASI).
    mentions = _name_mentions(document.text, doc["meta"]["applicant"])
    assert len(mentions) >= 2
    for start, end in mentions:
        select_text(page, start, end)  # the span is created on mouseup
        assert page.evaluate(f"window.__editor.store.ownAt({start}, {end}) !== null")
    after = _shown_rank(page)
    assert sorted(map(tuple, after["masks"])) == mentions
    assert after["rank"] > 1
    assert after["rank"] == document_rank(document=document, masks=mentions, k=10, top=5)["rank"]
    assert "re-identified" not in after["text"]
    # The twins now tie with the person at the top; the person is still listed and marked.
    top = page.locator("#reid-top > li")
    profiles = {top.nth(i).get_attribute("data-profile") for i in range(top.count())}
    assert {f"TWIN{i}" for i in range(TWINS)} <= profiles
    assert page.locator("#reid-top > li.is-target").count() == 1
    screenshot(page, "editor-reid-name-masked")

    # A decision taken back (NO_MASK on the first mention, by key) is followed too.
    start, end = mentions[0]
    page.evaluate(f"window.__editor.select(window.__editor.store.ownAt({start}, {end}).key)")
    page.keyboard.press("x")
    undone = _shown_rank(page)
    expected = document_rank(document=document, masks=mentions[1:], k=10, top=5)["rank"]
    assert undone["rank"] == expected
    # Saved like any decision: the server has the annotator's spans.
    page.wait_for_selector(SAVED)
    saved = Span.objects.filter(annotation_set__annotator=annotator)
    assert sorted((s.start, s.end) for s in saved) == mentions
    assert knowledge_base.reid_targets.count() == 0  # the imported target, no row


def test_a_burst_of_decisions_shows_the_newest_masks_and_errors_are_shown(
    live_server, page, tmp_path
):
    kb_path, docs = _dataset(tmp_path, twins_of=None)
    document = _biography(docs[1])
    _knowledge_base(document.project, kb_path)
    annotator = _member(document, "alice", Role.ANNOTATOR)
    _open_editor(page, live_server, document, annotator.username)
    _shown_rank(page)
    requests: list[Any] = []
    page.on(
        "request",
        lambda r: requests.append(r.post_data_json) if r.url.endswith("/reid/rank/") else None,
    )
    # Five new spans at once: one request in flight at a time, the newest masks win.
    words = [(m.start(), m.end()) for m in re.finditer(r"\w{4,}", document.text)][:5]
    page.evaluate(
        """(words) => { for (const [start, end] of words)
             window.__editor.store.create({start, end, identifier_type: 'QUASI'}); }""",
        words,
    )
    shown = _shown_rank(page)
    assert shown["rank"] == document_rank(document=document, masks=words, k=10, top=5)["rank"]
    # The first edit's request went at once; the other four waited for its answer, which
    # was dropped (stale), and one request asked for all five.
    assert [len(body["masks"]) for body in requests] == [1, 5]
    assert requests[-1]["masks"] == [list(w) for w in words]

    # A failing server: the rank is replaced by the error, never left stale.
    page.route("**/reid/rank/", lambda route: route.fulfill(status=500, body="boom"))
    page.evaluate("window.__editor.store.undo()")
    page.wait_for_selector("#reid-rank[data-state='error']")
    assert page.get_attribute("#reid-rank", "data-rank") is None
    assert "Could not compute the rank" in page.inner_text("#reid-rank")
    page.unroute("**/reid/rank/")
    page.click("#reid-rank button")  # try again
    assert (
        _shown_rank(page)["rank"]
        == (document_rank(document=document, masks=words[:-1], k=10, top=5)["rank"])
    )
    page.wait_for_selector(SAVED)


def test_mask_until_rank_above_k(live_server, page, tmp_path):
    kb_path, docs = _dataset(tmp_path, twins_of=None)
    document = _biography(docs[2])
    _knowledge_base(document.project, kb_path)
    annotator = _member(document, "alice", Role.ANNOTATOR)
    _open_editor(page, live_server, document, annotator.username)
    assert _shown_rank(page)["rank"] == 1

    page.fill("#reid-k", "3")
    page.press("#reid-k", "Enter")  # change event: the rank is asked again for K = 3
    _shown_rank(page)
    page.focus("#reid-suggest")
    page.keyboard.press("Enter")
    page.wait_for_selector("#reid-suggestions[data-state='ready']", timeout=30_000)
    count = int(page.get_attribute("#reid-suggestions", "data-count"))
    assert count > 0
    assert page.evaluate("CSS.highlights.get('reid-suggest').size") == count
    reasons = page.locator("#reid-suggestions .explain").all_inner_texts()
    assert reasons and all(r.startswith("reid: rank") for r in reasons)
    page.click("#reid-accept-all")
    assert page.evaluate("CSS.highlights.get('reid-suggest').size") == 0
    shown = _shown_rank(page)
    assert shown["rank"] > 3 and shown["safe"]
    assert len(shown["masks"]) == count

    # Each accepted span is a QUASI decision of the annotator that says why.
    key = page.evaluate("window.__editor.store.own()[0].key")
    page.evaluate(f"window.__editor.select('{key}')")
    assert page.locator("#span-panel .reasons li").first.inner_text().startswith("reid: rank")
    page.wait_for_selector(SAVED)
    saved = Span.objects.filter(annotation_set__annotator=annotator)
    assert saved.count() == count and {s.identifier_type for s in saved} == {"QUASI"}
    screenshot(page, "editor-reid-suggested")
    # Undoable: one undo per accepted span.
    for _ in range(count):
        page.keyboard.press("z")
    assert _shown_rank(page)["rank"] == 1
    page.wait_for_selector(SAVED)
    assert not Span.objects.filter(annotation_set__annotator=annotator).exists()


def test_the_annotator_chooses_the_person(live_server, page, tmp_path):
    kb_path, docs = _dataset(tmp_path, twins_of=None)
    doc = docs[3]
    document = _biography(doc, with_target=False)
    knowledge_base = _knowledge_base(document.project, kb_path)
    annotator = _member(document, "alice", Role.ANNOTATOR)
    _open_editor(page, live_server, document, annotator.username)
    page.wait_for_selector("#reid-panel[data-state='no-target']")
    page.fill("#reid-profile", doc["meta"]["person_id"])
    page.press("#reid-profile", "Enter")
    page.wait_for_selector("#reid-panel[data-state='target']")
    assert _shown_rank(page)["rank"] == 1
    target = ReidTarget.objects.get(document=document)
    assert (target.profile_id, target.knowledge_base_id, target.source) == (
        doc["meta"]["person_id"],
        knowledge_base.pk,
        TargetSource.UI,
    )


def test_editor_without_knowledge_base_gives_a_hint(live_server, page):
    document = DocumentFactory.create(external_id="no-kb")
    annotator = _member(document, "alice", Role.ANNOTATOR)
    _open_editor(page, live_server, document, annotator.username)
    page.wait_for_selector("#reid-panel[data-state='unavailable']")
    assert "No knowledge base" in page.inner_text("#reid-hint")


def test_review_table_shows_the_rank_per_version(live_server, page, tmp_path):
    kb_path, docs = _dataset(tmp_path, twins_of=0)
    doc = docs[0]
    document = _biography(doc)
    _knowledge_base(document.project, kb_path)
    annotator = _member(document, "alice", Role.ANNOTATOR)
    reviewer = _member(document, "rita", Role.REVIEWER)
    mentions = _name_mentions(document.text, doc["meta"]["applicant"])
    human = AnnotationSet.objects.create(
        document=document, kind=SetKind.HUMAN, annotator=annotator, status=SetStatus.SUBMITTED
    )
    machine = AnnotationSet.objects.create(
        document=document,
        kind=SetKind.MACHINE,
        source=SetSource.PREANNOTATION,
        source_name="ner",
        status=SetStatus.SUBMITTED,
    )
    for annotation_set, decision in ((human, "DIRECT"), (machine, "NO_MASK")):
        Span.objects.bulk_create(
            Span(
                annotation_set=annotation_set,
                start=start,
                end=end,
                text=document.text[start:end],
                entity_type="PERSON",
                identifier_type=decision,
            )
            for start, end in mentions
        )
    expected = {
        v["annotation_set"]: v
        for v in document_version_ranks(document=document, user=reviewer, k=10)["versions"]
    }
    assert expected[human.pk]["rank"] > 1 and expected[machine.pk]["rank"] == 1

    login(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/documents/{document.pk}/review/")
    wait_ready(page)
    page.wait_for_selector("#reid-versions[data-state='ready']")
    rows = page.locator("#reid-versions tr[data-set]")
    shown = {
        int(rows.nth(i).get_attribute("data-set")): int(rows.nth(i).get_attribute("data-rank"))
        for i in range(rows.count())
    }
    assert shown == {set_id: v["rank"] for set_id, v in expected.items()}
    machine_row = page.locator(f"#reid-versions tr[data-set='{machine.pk}']")
    assert "re-identified" in machine_row.inner_text()
    assert "alice" in page.locator(f"#reid-versions tr[data-set='{human.pk}']").inner_text()
    screenshot(page, "review-reid-versions")


CURVE_POINTS = [
    {"method": "none", "label": "no masking", "rate": 0.97, "share_masked": 0.0,
     "info_loss": 0.0, "per_model": {"bm25": 0.97}},
    {"method": "mask-all", "label": "recognizer mask-all", "rate": 0.08, "share_masked": 0.44,
     "info_loss": 0.4, "per_model": {"bm25": 0.08}},
    {"method": "greedy", "label": "greedy K=10", "rate": 0.01, "share_masked": 0.21,
     "info_loss": 0.2, "per_model": {"bm25": 0.01}},
]  # fmt: skip


def test_admin_page_draws_the_curve_and_queues_the_job(live_server, page):
    document = DocumentFactory.create(external_id="curve")
    admin = _member(document, "adele", Role.ADMIN)
    login(page, live_server.url, admin.username)
    admin_url = f"{live_server.url}/projects/{document.project_id}/admin/"
    page.goto(admin_url)
    wait_ready(page)
    page.wait_for_selector("#reid-curve[data-state='empty']")
    assert "No curve yet" in page.inner_text("#reid-curve")

    page.click("#start-reid-curve")
    page.wait_for_selector("#reid-message.ok")
    job = Job.objects.get(project=document.project, kind="reid_curve")
    assert job.status == JobStatus.QUEUED
    # The job's stored result is what the page draws once it finished.
    job.status = JobStatus.SUCCEEDED
    job.result = {"points": CURVE_POINTS}
    job.finished_at = timezone.now()
    job.save()
    page.goto(admin_url)
    wait_ready(page)
    page.wait_for_selector("#reid-curve[data-state='drawn']")
    assert page.get_attribute("#reid-curve", "data-job") == str(job.pk)
    points = page.locator("#reid-curve svg .point")
    assert points.count() == len(CURVE_POINTS)
    # No masking sits top left, mask-all far right and low.
    xs = [float(points.nth(i).get_attribute("cx")) for i in range(3)]
    ys = [float(points.nth(i).get_attribute("cy")) for i in range(3)]
    assert xs[0] < xs[2] < xs[1] and ys[0] < ys[1]
    labels = page.locator("#reid-curve tr[data-method] td:first-child").all_inner_texts()
    assert labels == [p["label"] for p in CURVE_POINTS]
    screenshot(page, "admin-reid-curve")
