"""POST /api/jobs/<id>/retry/: failed or cancelled jobs run again; same rights as cancel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jobs.models import Job, JobStatus
from tests.annotation.test_permissions_matrix import World, build_world
from tests.jobs.test_apis_jobs import sent_tasks  # noqa: F401  (the fixture)


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def _fail(job: Job, **fields: Any) -> None:
    Job.objects.filter(pk=job.pk).update(
        status=JobStatus.FAILED, attempts=3, error="worker died 3 times", celery_task_id="old",
        progress_done=4, progress_total=10, **fields,
    )  # fmt: skip


@pytest.mark.parametrize("status", [JobStatus.FAILED, JobStatus.CANCELLED])
def test_retry_queues_the_job_again_from_zero(
    world: World,
    sent_tasks: list[Any],  # noqa: F811
    django_capture_on_commit_callbacks: Any,
    status: str,
) -> None:
    _fail(world.job, result={"partial": 1})
    Job.objects.filter(pk=world.job.pk).update(status=status)

    with django_capture_on_commit_callbacks(execute=True):
        response = world.client("admin").post(f"/api/jobs/{world.job.pk}/retry/")

    assert response.status_code == 202, response.content
    body = response.json()
    assert (body["status"], body["attempts"], body["error"], body["result"]) == (
        "queued",
        0,
        "",
        {},
    )
    assert (body["progress_done"], body["progress_total"]) == (0, 0)
    assert body["log_tail"].rstrip().endswith("retried by admin-user")
    # Sent again: the send time is the queued job's last sign of life (jobs.janitor).
    job = Job.objects.get(pk=world.job.pk)
    assert (job.celery_task_id, job.heartbeat_at is not None) == ("task-id", True)
    assert sent_tasks == [("sanitizer.import_documents", [world.job.pk], "cpu")]


@pytest.mark.parametrize("status", [JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.SUCCEEDED])
def test_only_failed_or_cancelled_jobs_are_retried(world: World, status: str) -> None:
    Job.objects.filter(pk=world.job.pk).update(status=status)
    response = world.client("admin").post(f"/api/jobs/{world.job.pk}/retry/")
    assert response.status_code == 400
    assert "only failed or cancelled jobs can be retried" in response.json()["detail"]
    assert Job.objects.get(pk=world.job.pk).status == status


def test_retry_needs_the_rights_cancel_needs(world: World) -> None:
    _fail(world.job)
    assert world.client("reviewer").post(f"/api/jobs/{world.job.pk}/retry/").status_code == 403
    assert world.client("outsider").post(f"/api/jobs/{world.job.pk}/retry/").status_code == 404
    assert world.client("anonymous").post(f"/api/jobs/{world.job.pk}/retry/").status_code in (
        401, 403,
    )  # fmt: skip
    assert Job.objects.get(pk=world.job.pk).status == JobStatus.FAILED


def test_an_import_whose_upload_is_gone_asks_for_a_new_upload(world: World, tmp_path: Path) -> None:
    _fail(world.job, params={"path": str(tmp_path / "gone.json"), "format": "tab",
                             "delete_after": True})  # fmt: skip
    response = world.client("admin").post(f"/api/jobs/{world.job.pk}/retry/")
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "the uploaded file was removed when the job ended; upload it again"
    )
