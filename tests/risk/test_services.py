"""Risk services on the real database: stored assessments, re-solving without the
recognizer, machine sets whose spans carry reasons."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from unittest import mock

import pytest

from annotation.models import AnnotationSet, SetKind, SetSource
from risk.models import RiskAssessment
from risk.selectors import assessment_solve, risk_assessments_latest, risk_curve
from risk.services import assessment as assessment_module
from risk.services import risk_assess_documents, risk_solve_documents
from sanitizer.risk.measures.common import DEFAULT_MAX_ARITY
from sanitizer.risk.measures.lm import DEFAULT_THRESHOLD
from sanitizer.solver import check_masking, mask_entities
from sanitizer.types import EntitySpan

pytestmark = pytest.mark.django_db

SETTINGS: dict[str, Any] = {"measures": ["lm", "linkage"], "threshold": 6.0}


def _assess(project, **extra: Any) -> dict[str, Any]:
    return risk_assess_documents(project=project, document_ids=None, settings={**SETTINGS, **extra})


def test_assessment_is_stored_with_entities_and_raw_combinations(risk_project):
    project, documents = risk_project
    result = _assess(project)
    assert result["documents"] == 2
    rows = risk_assessments_latest(project=project)
    assert [r.document_id for r in rows] == [d.pk for d in documents]
    data = rows[0].data
    texts = {e["text"] for e in data["entities"]}
    assert "Diyarbakır" in texts
    for entity in data["entities"]:
        assert entity["ic"] >= 0 and entity["peak"] >= 0
        for start, end in entity["mentions"]:
            assert 0 <= start < end <= len(documents[0].text)
    # Linkage combinations are stored with raw scores; lm ones are re-derived at solve time.
    assert {c["measure"] for c in data["combinations"]} <= {"linkage"}
    assert rows[0].settings == SETTINGS
    assert "measures=lm,linkage" in rows[0].version


def test_resolve_with_other_thresholds_never_runs_the_recognizer(risk_project):
    project, _ = risk_project
    real_load = assessment_module.recognizer_load
    calls: list[int] = []

    def load_once(**kwargs: Any) -> Any:
        recognizer = real_load(**kwargs)

        def predict_batch(texts: Sequence[str]) -> list[list[EntitySpan]]:
            if calls:
                raise AssertionError("the recognizer ran a second time")
            calls.append(len(texts))
            return recognizer.predict_batch(texts)

        return replace(recognizer, predict_batch=predict_batch)

    with mock.patch.object(assessment_module, "recognizer_load", load_once):
        _assess(project)
        assessment = risk_assessments_latest(project=project)[0]
        strict = assessment_solve(assessment=assessment, requested={"threshold": 3.0})
        loose = assessment_solve(assessment=assessment, requested={"threshold": 30.0})
        risk_solve_documents(project=project, document_ids=None, settings={"threshold": 3.0})
    assert calls == [2]
    assert strict.settings["threshold"] == 3.0
    assert strict.share_masked > loose.share_masked
    assert {m["start"] for m in loose.masks()} < {m["start"] for m in strict.masks()}
    for masking in (strict, loose):
        solved = masking.solved
        entities = mask_entities(solved.document.entities, solved.ic)
        assert not check_masking(entities, list(solved.combinations), solved.solution)
        assert masking.masks()
        assert all(m["reasons"] for m in masking.masks())


def test_measure_subset_and_kb_refilter(risk_project):
    project, _ = risk_project
    _assess(project)
    assessment = risk_assessments_latest(project=project)[0]
    # A stored kb combination shared by 3 persons is risky for k=5, not for k=3.
    entity_ids = [e["id"] for e in assessment.data["entities"]]
    kb = {"measure": "kb", "entity_ids": entity_ids[-1:], "score": 3.0, "text": "KB: → 3 persons"}
    assessment.data["combinations"].append(kb)
    assessment.settings = {**assessment.settings, "measures": ["lm", "linkage", "kb"]}
    kb_only = {"measures": ["kb"]}
    risky = assessment_solve(assessment=assessment, requested={**kb_only, "k": 5})
    safe = assessment_solve(assessment=assessment, requested={**kb_only, "k": 3})
    assert [c.measure for c in risky.solved.combinations] == ["kb"]
    assert safe.risky == 0
    assert entity_ids[-1] in risky.solved.solution.masked
    assert risky.share_masked > safe.share_masked


def test_solve_writes_masking_sets_whose_spans_carry_reasons(risk_project):
    project, _ = risk_project
    _assess(project)
    result = risk_solve_documents(project=project, document_ids=None, settings=SETTINGS)
    assert result["documents"] == 2
    sets = AnnotationSet.objects.filter(
        document__project=project, kind=SetKind.MACHINE, source=SetSource.MASKING
    )
    assert sets.count() == 2
    for annotation_set in sets:
        spans = list(annotation_set.spans.all())
        assert spans
        for span in spans:
            assert span.attrs["reasons"], span
            assert span.attrs["entity"].startswith("e")
            for reason in span.attrs["reasons"]:
                assert {"measure", "text", "score", "combination"} <= set(reason)
        assert annotation_set.parameters["share_masked"] > 0
    # A second run with other settings replaces the first (kept as history).
    risk_solve_documents(project=project, document_ids=None, settings={"threshold": 30.0})
    assert sets.count() == 2
    assert (
        AnnotationSet.history.filter(document__project=project, source=SetSource.MASKING).count()
        == 4
    )


def test_solve_without_assessment_stores_nothing(risk_project):
    project, _ = risk_project
    result = risk_solve_documents(project=project, document_ids=None, settings={})
    assert result["documents"] == 0
    assert not AnnotationSet.objects.filter(document__project=project).exists()


def test_newest_assessment_counts_and_curve_falls_with_threshold(risk_project):
    project, documents = risk_project
    _assess(project)
    _assess(project, threshold=8.0)
    assert RiskAssessment.objects.filter(document=documents[0]).count() == 2
    newest = risk_assessments_latest(project=project)[0]
    assert newest.settings["threshold"] == 8.0
    curve = risk_curve(project=project, thresholds=[2.0, 8.0, 40.0])
    shares = [p["share_masked"] for p in curve["points"]]
    assert curve["documents"] == 2
    assert shares[0] >= shares[1] >= shares[2] > 0
    assert shares[0] > shares[2]


def test_project_privacy_settings_are_the_defaults(risk_project):
    project, _ = risk_project
    project.privacy_settings = {"risk": {"threshold": 3.0, "k": 7}}
    project.save()
    risk_assess_documents(project=project, document_ids=None, settings={"measures": ["lm"]})
    assessment = risk_assessments_latest(project=project)[0]
    assert assessment.settings == {"threshold": 3.0, "k": 7, "measures": ["lm"]}
    masking = assessment_solve(assessment=assessment, requested={})
    assert masking.settings == {
        "threshold": 3.0,
        "k": 7,
        "max_arity": DEFAULT_MAX_ARITY,
        "measures": ["lm"],
    }
    # Settings out of bounds are not used.
    assessment.document.project.privacy_settings = {"risk": {"threshold": -5}}
    assessment.settings = {}
    masking = assessment_solve(assessment=assessment, requested={})
    assert masking.settings["threshold"] == DEFAULT_THRESHOLD


def test_the_measures_that_ran_are_stored_and_solved_later(risk_project):
    """An assessment made without explicit measures keeps the ones that ran: a later
    solve with no measures (the chained job, the dial) breaks all their combinations,
    whatever the project's settings say by then."""
    project, _ = risk_project
    risk_assess_documents(project=project, document_ids=None, settings={})
    assessment = risk_assessments_latest(project=project)[0]
    ran = assessment.settings["measures"]
    assert ran and "lm" in ran
    project.privacy_settings = {"risk": {"measures": ["linkage"]}}
    project.save()
    assessment.refresh_from_db()
    masking = assessment_solve(assessment=assessment, requested={})
    assert masking.settings["measures"] == ran


def test_a_large_curve_is_sampled_to_a_bounded_number_of_solves(risk_project, monkeypatch):
    from risk import selectors

    project, _ = risk_project
    _assess(project)
    monkeypatch.setattr(selectors, "CURVE_SOLVE_BUDGET", 2)
    curve = risk_curve(project=project, thresholds=[2.0, 8.0])
    assert curve["assessed_documents"] == 2
    assert curve["documents"] == 1 and curve["sampled"] is True
    assert len(curve["points"]) == 2
