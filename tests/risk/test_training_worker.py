"""``train_risk`` through the job API and a real Celery worker (gpu queue): the model
version it registers is what a later ``risk_assess`` with the supervised measure reads."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from rest_framework.test import APIClient

from annotation.models import Role
from jobs.models import JobStatus
from ml.models import ModelKind, ModelVersion
from tests.factories import MembershipFactory, UserFactory
from tests.ml.test_risk_training import make_annotated_project

if TYPE_CHECKING:
    from tests.celery_worker import CeleryWorker

pytest_plugins = ["tests.celery_worker"]


@pytest.fixture(scope="module", autouse=True)
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The worker (started after this, it inherits the environment) writes models here."""
    path = tmp_path_factory.mktemp("models")
    previous = os.environ.get("MODEL_DIR")
    os.environ["MODEL_DIR"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("MODEL_DIR", None)
    else:
        os.environ["MODEL_DIR"] = previous


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_train_risk_through_a_real_worker(celery_worker: CeleryWorker, model_dir: Path):
    project, _ = make_annotated_project("trw")
    admin = UserFactory.create(username="train-risk-admin")
    MembershipFactory.create(project=project, user=admin, role=Role.ADMIN)
    client = APIClient()
    client.force_authenticate(admin)

    refused = client.post(
        f"/api/projects/{project.pk}/jobs/create/",
        {"kind": "train_risk", "params": {"name": "../../etc"}},
        format="json",
    )
    assert refused.status_code == 400, refused.content
    response = client.post(
        f"/api/projects/{project.pk}/jobs/create/",
        {"kind": "train_risk", "params": {"name": "worker-risk", "folds": 2}},
        format="json",
    )
    assert response.status_code == 201, response.content
    job, _ = celery_worker.wait_for_job(response.json()["id"], timeout=240)
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.queue == "gpu"
    model_version = ModelVersion.objects.get(pk=job.result["model_version_id"])
    assert model_version.kind == ModelKind.RISK_CLASSIFIER and model_version.job_id == job.pk
    assert job.result["metrics"] == model_version.metrics and model_version.metrics["folds"] == 2
    assert Path(model_version.artefact_path).parent == model_dir
    assert (Path(model_version.artefact_path) / "model.joblib").is_file()
