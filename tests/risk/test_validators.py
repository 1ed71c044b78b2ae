"""The risk job kinds' parameters: known measures, bounded numbers, ids in the project."""

from __future__ import annotations

from typing import Any

import pytest

from jobs.services import JobStateError, job_create
from ml.models import ModelKind
from risk.validators import RISK_ASSESS, RISK_SOLVE, risk_params_validate
from tests.factories import DocumentFactory, ModelVersionFactory, ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"measures": ["lm", "web"]}, "measures"),
        ({"measures": "lm"}, "measures"),
        ({"threshold": "high"}, "threshold"),
        ({"threshold": 101}, "threshold"),
        ({"k": 0}, "k"),
        ({"k": 1_000_001}, "k"),
        ({"max_arity": 5}, "max_arity"),
        ({"document_ids": "all"}, "document_ids"),
        ({"risk_model_version_id": "1"}, "risk_model_version_id"),
        ({"measures": ["supervised"]}, "risk_model_version_id"),
        ({"path": "/etc/passwd"}, "unknown parameters"),
    ],
)
def test_bad_parameters_are_refused(params: dict[str, Any], message: str):
    project = ProjectFactory.create()
    with pytest.raises(JobStateError, match=message):
        risk_params_validate(params, project)


def test_ids_must_be_in_the_project(risk_project):
    project, documents = risk_project
    elsewhere = DocumentFactory.create(project=ProjectFactory.create(name="elsewhere"))
    with pytest.raises(JobStateError, match="outside this project"):
        risk_params_validate({"document_ids": [documents[0].pk, elsewhere.pk]}, project)
    other_model = ModelVersionFactory.create(
        project=ProjectFactory.create(name="other"), kind=ModelKind.RISK_CLASSIFIER
    )
    with pytest.raises(JobStateError, match="no risk model version"):
        risk_params_validate({"risk_model_version_id": other_model.pk}, project)


def test_good_parameters_queue_both_kinds(risk_project, django_capture_on_commit_callbacks):
    project, documents = risk_project
    params = {
        "document_ids": [d.pk for d in documents],
        "measures": ["lm", "linkage"],
        "threshold": 6.5,
        "k": 5,
        "max_arity": 3,
    }
    with django_capture_on_commit_callbacks(execute=False):
        assess = job_create(kind=RISK_ASSESS, params=params, project=project)
        solve = job_create(kind=RISK_SOLVE, params=params, project=project)
    assert (assess.queue, solve.queue) == ("gpu", "cpu")
