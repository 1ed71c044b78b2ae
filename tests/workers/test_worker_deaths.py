"""A job whose worker child is killed (``kill -9``) runs again, at most three times in all."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annotation.models import Document
from annotation.services import project_create
from jobs.models import Job, JobStatus
from jobs.services import job_create
from tests.celery_worker import CeleryWorker, private_broker, run_celery_worker
from tests.workers.test_tasks import write_large_tab


@pytest.fixture(scope="module")
def prefork_worker(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CeleryWorker]:
    """A real worker whose task runs in a child process (the one ``kill -9`` hits)."""
    from django.db import connection

    with django_db_blocker.unblock():
        database = dict(connection.settings_dict)
    log_dir = tmp_path_factory.mktemp("celery-prefork")
    with run_celery_worker(database=database, log_dir=log_dir, pool="prefork") as worker:
        yield worker


def _pool_child(worker: CeleryWorker) -> int:
    pid = worker.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def _wait_running(job_id: int, attempt: int, worker: CeleryWorker, timeout: float = 300) -> None:
    # Generous: after a kill the pool forks a new child and the message comes back, on a
    # machine shared with another test process. The wait ends when the attempt runs.
    deadline = time.monotonic() + timeout
    while True:
        job = Job.objects.get(pk=job_id)
        if job.status == JobStatus.RUNNING and job.attempts == attempt:
            return
        assert not job.is_finished, (job.status, job.error)
        worker.assert_alive()
        assert time.monotonic() < deadline, f"attempt {attempt} did not start:\n{worker.log()}"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_job_whose_worker_child_is_killed_three_times_fails_with_a_clear_message(
    prefork_worker: CeleryWorker, tab_sample_path: Path, tmp_path: Path
) -> None:
    path = tmp_path / "large.json"
    write_large_tab(tab_sample_path, path, 300)  # seconds of work: time to kill it
    project = project_create(name="crash loop")
    job = job_create(kind="import", params={"path": str(path), "format": "tab"}, project=project)

    for attempt in (1, 2, 3):
        _wait_running(job.pk, attempt, prefork_worker)
        os.kill(_pool_child(prefork_worker), signal.SIGKILL)
        prefork_worker.wait_for_log(
            "|".join(["WorkerLostError"] * attempt).replace("|", r"[\s\S]*"), timeout=300
        )

    job, _ = prefork_worker.wait_for_job(job.pk, timeout=120)
    assert job.status == JobStatus.FAILED
    assert job.attempts == 3
    assert job.error == (
        "worker died 3 times while running this job (at most 3 attempts); not trying again"
    )
    # Each killed run's transaction was rolled back; the fourth delivery did no work.
    assert not Document.objects.filter(project=project).exists()


def _janitor_until(job_ids: set[int], timeout: float = 60) -> None:
    """Run the janitor (as beat would) until it has re-queued every one of ``job_ids``."""
    from datetime import timedelta

    from jobs.janitor import jobs_janitor

    deadline = time.monotonic() + timeout
    requeued: set[int] = set()
    while not job_ids <= requeued:
        requeued |= set(jobs_janitor(stale_after=timedelta(seconds=2)).requeued)
        assert time.monotonic() < deadline, f"re-queued only {requeued} of {job_ids}"
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_after_a_whole_worker_kill_and_a_broker_flush_another_worker_finishes_the_jobs(
    tab_sample_path: Path, tmp_path: Path
) -> None:
    from django.db import connection

    database = dict(connection.settings_dict)
    path = tmp_path / "large.json"
    write_large_tab(tab_sample_path, path, 300)
    project = project_create(name="orphans")
    with run_celery_worker(database=database, log_dir=tmp_path) as first:
        running = job_create(
            kind="import", params={"path": str(path), "format": "tab"}, project=project
        )
        _wait_running(running.pk, 1, first)
        # The whole worker dies (its unacknowledged message would wait 13 hours).
        os.killpg(first.process.pid, signal.SIGKILL)
        first.process.wait(timeout=30)
    # No worker now: this job's message waits in a broker (a Redis database of this
    # test's own), which then loses its data.
    with private_broker() as (_, client):
        queued = job_create(
            kind="import",
            params={"path": str(tab_sample_path), "format": "tab"},
            project=project_create(name="queued"),
        )
        assert Job.objects.get(pk=queued.pk).celery_task_id
        assert client.llen("cpu") == 1
        client.flushdb()

    (tmp_path / "second").mkdir()
    with run_celery_worker(database=database, log_dir=tmp_path / "second") as second:
        _janitor_until({running.pk, queued.pk})
        for job_id, documents in ((running.pk, 300), (queued.pk, 3)):
            job, _ = second.wait_for_job(job_id, timeout=240)
            assert job.status == JobStatus.SUCCEEDED, job.error
            assert job.result["documents"] == documents
    assert Job.objects.get(pk=running.pk).attempts == 2
    assert Document.objects.filter(project=project).count() == 300
