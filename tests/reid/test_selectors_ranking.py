"""The live rank, the greedy suggestion and the rank per version, with BM25 over 50 people."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Document, SetKind, SetSource
from jobs.models import JobStatus
from reid.selectors import (
    document_rank,
    document_suggest,
    document_version_ranks,
    project_reid_curve,
    ranking,
)
from reid.validators import REID_CURVE
from tests.factories import AnnotationSetFactory, DocumentFactory, JobFactory, SpanFactory
from tests.reid.helpers import N_PEOPLE, World, make_world, occurrences

pytestmark = pytest.mark.django_db


def _short_document(world: World) -> tuple[Document, list[list[int]]]:
    """A document naming its person and nothing else about them, and the name's masks."""
    source = world.document
    name = source.target_person
    document = DocumentFactory.create(
        project=world.project,
        text=f"Yesterday {name} gave a talk. Everyone listened to {name} for an hour.",
        meta={"target": source.meta["target"]},
    )
    masks = [m for part in name.split() for m in occurrences(document.text, part)]
    return document, masks


def test_masking_the_name_raises_the_rank_from_1(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    document, name_masks = _short_document(world)

    before = document_rank(document=document, masks=[], k=10, top=5)
    after = document_rank(document=document, masks=name_masks, k=10, top=5)

    assert before["rank"] == before["ranks"]["bm25"] == 1
    assert before["reidentified"] is True and before["safe"] is False
    assert before["n_candidates"] == N_PEOPLE
    assert before["top"][0]["is_target"] is True
    assert before["top"][0]["rank"] == 1
    assert any(link.startswith("name || ") for link in before["top"][0]["links"])
    assert before["share_masked"] == 0.0
    # Nothing else links the text to anyone: every profile ties, and a tie is no finding.
    assert after["rank"] == N_PEOPLE
    assert after["reidentified"] is False and after["safe"] is True
    assert after["share_masked"] > 0
    assert after["elapsed_ms"] > 0


def test_top_candidates_are_ordered_by_rank_and_bounded(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    result = document_rank(document=world.document, masks=[], k=10, top=3)
    assert len(result["top"]) == 3
    ranks = [c["rank"] for c in result["top"]]
    assert ranks == sorted(ranks)
    assert sum(c["is_target"] for c in result["top"]) <= 1
    assert all(c["model"] == "bm25" and c["name"] for c in result["top"])


def test_masks_outside_the_text_are_refused_naming_the_field(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    n = len(world.document.text)
    with pytest.raises(ValidationError) as caught:
        document_rank(document=world.document, masks=[[0, 3], [n - 1, n + 1]], k=10, top=5)
    assert "mask #1" in caught.value.message_dict["masks"][0]


def test_suggestion_reaches_rank_above_k(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    document = world.document
    k = 3

    suggestion = document_suggest(document=document, masks=[], k=k)

    assert suggestion["reached"] is True
    assert suggestion["ranks_before"]["bm25"] <= k
    assert suggestion["ranks_after"]["bm25"] > k
    spans = suggestion["spans"]
    assert spans
    for span in spans:
        assert document.text[span["start"] : span["end"]] == span["text"]
        assert span["reason"].startswith("reid: rank ")
        assert " → " in span["reason"]
    masks = [[s["start"], s["end"]] for s in spans]
    assert document_rank(document=document, masks=masks, k=k, top=5)["rank"] > k


def test_suggestion_in_a_request_is_bounded_in_steps(tmp_path: Path, monkeypatch) -> None:
    world = make_world(tmp_path)
    monkeypatch.setattr(ranking, "SUGGEST_MAX_STEPS", 1)

    # No rank is above the number of candidates: unbounded, the search would mask every word.
    suggestion = document_suggest(document=world.document, masks=[], k=N_PEOPLE)

    assert suggestion["reached"] is False
    assert len({s["reason"] for s in suggestion["spans"]}) == 1


def test_suggestion_keeps_the_current_masks_and_adds_only_what_is_needed(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    document, name_masks = _short_document(world)
    # The name masked already puts the person out of reach: nothing to add.
    suggestion = document_suggest(document=document, masks=name_masks, k=10)
    assert suggestion["reached"] is True
    assert suggestion["spans"] == []
    assert suggestion["ranks_before"] == suggestion["ranks_after"] == {"bm25": N_PEOPLE}


def test_each_version_leaves_its_own_rank(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    document, name_masks = _short_document(world)
    annotator = world.users["annotator"]
    human = AnnotationSetFactory.create(document=document, kind=SetKind.HUMAN, annotator=annotator)
    for start, end in name_masks:
        SpanFactory.create(annotation_set=human, start=start, end=end)
    machine = AnnotationSetFactory.create(
        document=document,
        kind=SetKind.MACHINE,
        source=SetSource.PREANNOTATION,
        source_name="recognizer",
    )
    for start, end in name_masks:
        # The machine found the name but decided to keep it: not a mask.
        SpanFactory.create(annotation_set=machine, start=start, end=end, identifier_type="NO_MASK")
    AnnotationSetFactory.create(document=document, kind=SetKind.GOLD, annotator=None)

    result = document_version_ranks(document=document, user=world.users["reviewer"], k=10)

    by_set = {v["annotation_set"]: v for v in result["versions"]}
    assert set(by_set) == {human.pk, machine.pk}
    assert by_set[human.pk]["kind"] == "human"
    assert by_set[human.pk]["label"] == annotator.username
    assert by_set[human.pk]["rank"] == N_PEOPLE and by_set[human.pk]["safe"] is True
    assert by_set[machine.pk]["kind"] == "machine"
    assert by_set[machine.pk]["label"] == "recognizer"
    assert by_set[machine.pk]["ranks"] == {"bm25": 1}
    assert by_set[machine.pk]["share_masked"] == 0.0


def test_versions_follow_what_the_user_may_see(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    document = world.document
    other = AnnotationSetFactory.create(document=document, kind=SetKind.HUMAN)
    SpanFactory.create(annotation_set=other, start=0, end=4)
    result = document_version_ranks(document=document, user=world.users["annotator"], k=10)
    assert result["versions"] == []  # another annotator's set, gold not published


def test_curve_is_the_latest_succeeded_curve_job(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    assert project_reid_curve(project=world.project) is None
    JobFactory.create(project=world.project, kind=REID_CURVE, status=JobStatus.FAILED)
    assert project_reid_curve(project=world.project) is None
    point = {"method": "none", "label": "no masking", "rate": 1.0, "share_masked": 0.0}
    job = JobFactory.create(
        project=world.project,
        kind=REID_CURVE,
        status=JobStatus.SUCCEEDED,
        result={"points": [point]},
    )
    curve = project_reid_curve(project=world.project)
    assert curve is not None
    assert curve["job"] == job.pk and curve["points"] == [point]
