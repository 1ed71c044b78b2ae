"""The re-identification jobs through a real Celery worker: reid_deidentify stores masking
sets that fool BM25, reid_curve's result is the curve the project API serves."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from annotation.models import AnnotationSet, SetKind, SetSource
from jobs.models import JobStatus
from tests.reid.helpers import make_world

if TYPE_CHECKING:
    from tests.celery_worker import CeleryWorker

pytest_plugins = ["tests.celery_worker"]


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_deidentify_then_curve_through_a_real_worker(
    celery_worker: CeleryWorker, tmp_path: Path
) -> None:
    world = make_world(tmp_path)
    client = world.client("admin")
    url = f"/api/projects/{world.project.pk}/jobs/create/"
    assert client.get(f"/api/projects/{world.project.pk}/reid/curve/").status_code == 404

    response = client.post(url, {"kind": "reid_deidentify", "params": {"k": 3}}, format="json")
    assert response.status_code == 201, response.content
    job, _ = celery_worker.wait_for_job(response.json()["id"], timeout=240)
    assert job.status == JobStatus.SUCCEEDED, job.error
    n = len(world.documents)
    assert (job.queue, job.result["documents"], job.result["reached"]) == ("cpu", n, n)
    sets = AnnotationSet.objects.filter(
        document__project=world.project, kind=SetKind.MACHINE, source=SetSource.MASKING, job=job
    )
    assert sets.count() == n
    for annotation_set in sets:
        assert annotation_set.source_name == "reid"
        assert annotation_set.parameters["ranks_after"]["bm25"] > 3
        assert all(s.attrs["reasons"][0]["measure"] == "reid" for s in annotation_set.spans.all())

    response = client.post(
        url, {"kind": "reid_curve", "params": {"k_values": [1, 3]}}, format="json"
    )
    assert response.status_code == 201, response.content
    curve_job, _ = celery_worker.wait_for_job(response.json()["id"], timeout=240)
    assert curve_job.status == JobStatus.SUCCEEDED, curve_job.error
    labels = [p["label"] for p in curve_job.result["points"]]
    assert labels == ["no masking", "masking: reid", "K=1", "K=3"]

    served = client.get(f"/api/projects/{world.project.pk}/reid/curve/")
    assert served.status_code == 200, served.content
    body = served.json()
    assert body["job"] == curve_job.pk and body["points"] == curve_job.result["points"]
