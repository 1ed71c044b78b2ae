"""Greedy de-identification of a project's documents (the ``reid_deidentify`` job's service):
one masking machine set per document with a target, whose masks put the person's BM25 rank
above K, each span carrying the reason it was masked."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.models import AnnotationSet, SetKind, SetSource
from reid.services.deidentify import REID_SOURCE_NAME, reid_deidentify_documents
from sanitizer.reid.base import build_model, rank_of
from sanitizer.reid.profiles import load_profiles
from tests.factories import DocumentFactory
from tests.reid.helpers import make_world

pytestmark = pytest.mark.django_db


def test_masks_put_every_target_outside_the_top_k(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    loner = DocumentFactory.create(project=world.project, text="Nobody in particular.", position=9)
    progress: list[tuple[int, int]] = []

    result = reid_deidentify_documents(
        project=world.project, k=3, progress=lambda done, total, _m: progress.append((done, total))
    )

    n = len(world.documents)
    assert result["documents"] == n and result["reached"] == n
    assert result["skipped"] == {"no target": 1} and result["masked_spans"] > 0
    assert progress[-1] == (n, n)
    sets = AnnotationSet.objects.filter(
        document__project=world.project, kind=SetKind.MACHINE, source=SetSource.MASKING
    )
    assert sets.count() == n and not sets.filter(document=loner).exists()
    bm25 = build_model("bm25", load_profiles(world.kb_path))
    for annotation_set in sets.select_related("document"):
        document = annotation_set.document
        assert annotation_set.source_name == REID_SOURCE_NAME
        params = annotation_set.parameters
        assert params["strategy"] == "reid" and params["k"] == 3 and params["reached"]
        assert params["ranks_before"]["bm25"] == 1 and params["ranks_after"]["bm25"] > 3
        spans = list(annotation_set.spans.all())
        assert spans
        for span in spans:
            reason = span.attrs["reasons"][0]
            assert reason["measure"] == "reid" and "→" in reason["text"]
            assert span.text == document.text[span.start : span.end]
        masks = [(s.start, s.end) for s in spans]
        row = bm25.scores([document.text], [masks])[0]
        target = document.meta["target"]
        assert rank_of(row, bm25.profile_ids.index(target)) > 3


def test_a_new_run_replaces_the_previous_one_and_only_named_documents(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    first, second = world.documents[:2]
    reid_deidentify_documents(project=world.project, k=1, document_ids=[first.pk])
    result = reid_deidentify_documents(project=world.project, k=5, document_ids=[first.pk])

    assert result["documents"] == 1
    current = AnnotationSet.objects.get(document=first, source=SetSource.MASKING)
    assert current.parameters["k"] == 5
    assert AnnotationSet.history.filter(document=first, source=SetSource.MASKING).count() == 2
    assert not AnnotationSet.objects.filter(document=second, source=SetSource.MASKING).exists()


def test_start_from_risk_keeps_the_solver_masks_and_adds_what_is_needed(tmp_path: Path) -> None:
    from risk.selectors import assessment_solve, risk_assessments_latest
    from risk.services import risk_assess_documents

    world = make_world(tmp_path)
    document = world.document
    risk_assess_documents(
        project=world.project,
        document_ids=[document.pk],
        settings={"measures": ["lm", "linkage"], "threshold": 6.0},
    )
    assessment = risk_assessments_latest(project=world.project)[0]
    risk_masks = {
        (s.start, s.end)
        for s in assessment_solve(assessment=assessment, requested={}).masked_spans()
    }
    assert risk_masks

    result = reid_deidentify_documents(
        project=world.project, k=3, start="risk", document_ids=[document.pk]
    )

    assert result["reached"] == 1
    annotation_set = AnnotationSet.objects.get(document=document, source=SetSource.MASKING)
    assert annotation_set.parameters["started_from"] == "risk"
    spans = {(s.start, s.end): s for s in annotation_set.spans.all()}
    assert risk_masks <= set(spans)
    # The solver's masks keep their own reasons; what greedy added says "reid".
    measures = {(s.start, s.end): s.attrs["reasons"][0]["measure"] for s in spans.values()}
    assert all(measures[m] != "reid" for m in risk_masks)
    assert "reid" in measures.values() or annotation_set.parameters["ranks_before"]["bm25"] > 3


def test_start_from_risk_without_an_assessment_starts_from_nothing(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    result = reid_deidentify_documents(
        project=world.project, k=2, start="risk", document_ids=[world.document.pk]
    )
    assert result["start"] == "risk" and result["documents"] == 1
    annotation_set = AnnotationSet.objects.get(document=world.document, source=SetSource.MASKING)
    assert annotation_set.parameters["started_from"] == "none"
    assert annotation_set.source_version.endswith("start=risk")


def test_no_document_with_a_target_stores_nothing(tmp_path: Path) -> None:
    world = make_world(tmp_path, with_target=False)
    result = reid_deidentify_documents(project=world.project, k=3)
    assert result["documents"] == 0 and result["skipped"] == {"no target": len(world.documents)}
    assert not AnnotationSet.objects.filter(source=SetSource.MASKING).exists()
