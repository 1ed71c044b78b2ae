"""The risk jobs through a real Celery worker: risk_assess (gpu queue) queues risk_solve
(cpu queue), which stores masking sets whose spans carry their reasons."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from rest_framework.test import APIClient

from annotation.models import AnnotationSet, Role, SetKind, SetSource
from jobs.models import Job, JobStatus
from risk.models import RiskAssessment
from tests.factories import MembershipFactory, UserFactory
from tests.risk.conftest import make_project

if TYPE_CHECKING:
    from tests.celery_worker import CeleryWorker

pytest_plugins = ["tests.celery_worker"]


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_risk_assess_then_solve_through_a_real_worker(celery_worker: CeleryWorker):
    project, documents = make_project("risk worker project")
    admin = UserFactory.create(username="risk-worker-admin")
    MembershipFactory.create(project=project, user=admin, role=Role.ADMIN)
    client = APIClient()
    client.force_authenticate(admin)

    response = client.post(
        f"/api/projects/{project.pk}/jobs/create/",
        {"kind": "risk_assess", "params": {"measures": ["lm", "linkage"], "threshold": 6.0}},
        format="json",
    )
    assert response.status_code == 201, response.content
    assess, _ = celery_worker.wait_for_job(response.json()["id"], timeout=240)
    assert assess.status == JobStatus.SUCCEEDED, assess.error
    assert assess.queue == "gpu"
    assert assess.result["documents"] == 2
    assert RiskAssessment.objects.filter(document__project=project, job=assess).count() == 2

    solve_id = assess.result["solve_job_id"]
    assert Job.objects.get(pk=solve_id).queue == "cpu"
    solve, _ = celery_worker.wait_for_job(solve_id, timeout=240)
    assert solve.status == JobStatus.SUCCEEDED, solve.error
    assert solve.kind == "risk_solve" and solve.params == assess.params
    assert solve.result["documents"] == 2 and solve.result["masked_spans"] > 0

    sets = AnnotationSet.objects.filter(
        document__project=project, kind=SetKind.MACHINE, source=SetSource.MASKING, job=solve
    )
    assert sets.count() == 2
    for annotation_set in sets:
        spans = list(annotation_set.spans.all())
        assert spans
        assert all(span.attrs["reasons"] and span.attrs["entity"] for span in spans)
    # The dial now answers from the stored assessment.
    dial = client.post(
        f"/api/documents/{documents[0].pk}/risk/solve/", {"threshold": 6.0}, format="json"
    )
    assert dial.status_code == 200, dial.content
    assert dial.json()["masks"]
