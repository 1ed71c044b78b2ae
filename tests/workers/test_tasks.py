"""The import task: in-process (``Task.apply``) and through a real Celery worker."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import OperationalError

from annotation.models import AnnotationSet, Document, Project, Span
from annotation.services import project_create
from jobs.models import Job, JobStatus
from jobs.services import job_cancel, job_create, job_start
from tests.factories import JobFactory, ProjectFactory
from workers.runner import Reporter, run_job
from workers.tasks import TASKS

if TYPE_CHECKING:
    from tests.celery_worker import CeleryWorker

# Provides the ``celery_worker`` fixture.
pytest_plugins = ["tests.celery_worker"]


def table_counts(*, skip: tuple[str, ...] = ()) -> dict[str, int]:
    return {
        m._meta.label: m._default_manager.count()
        for m in apps.get_models()
        if m._meta.label not in skip
    }


def write_large_tab(sample: Path, out: Path, documents: int) -> dict[str, int]:
    """The sample's documents repeated under new doc ids, written one at a time."""
    docs = json.loads(sample.read_text(encoding="utf-8"))
    counts = {"documents": 0, "annotation_sets": 0, "spans": 0}
    with out.open("w", encoding="utf-8") as stream:
        stream.write("[")
        for i in range(documents):
            doc = dict(docs[i % len(docs)], doc_id=f"{docs[i % len(docs)]['doc_id']}-{i:05d}")
            stream.write(("," if i else "") + json.dumps(doc, ensure_ascii=False))
            counts["documents"] += 1
            counts["annotation_sets"] += len(doc["annotations"])
            counts["spans"] += sum(len(a["entity_mentions"]) for a in doc["annotations"].values())
        stream.write("]")
    return counts


def corrupt_document(sample: Path, out: Path, index: int) -> tuple[str, str]:
    """A copy of the sample with a bad offset in document ``index``; returns its ids."""
    docs = json.loads(sample.read_text(encoding="utf-8"))
    doc = docs[index]
    mention = doc["annotations"]["annotator1"]["entity_mentions"][-1]
    mention["end_offset"] = len(doc["text"]) + 10
    out.write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    return doc["doc_id"], mention["entity_mention_id"]


def import_job(project: Project, path: Path, **params: Any) -> Job:
    return JobFactory.create(
        kind="import", project=project, params={"path": str(path), "format": "tab", **params}
    )


# --- in process -----------------------------------------------------------------------


@pytest.mark.django_db
def test_import_task_imports_and_reports(tab_sample_path):
    job = import_job(ProjectFactory.create(), tab_sample_path)

    TASKS["import"].apply(args=[job.pk])

    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.result["documents"] == 3
    assert job.result["spans"] == Span.objects.count() > 0
    assert job.progress_total == tab_sample_path.stat().st_size
    assert job.progress_done == job.progress_total
    log = [line.split(" ", 1)[1] for line in job.log_tail.splitlines()]
    assert log[0] == "importing tab_sample.json (tab)"
    assert len(log) == 2
    assert log[1].startswith("imported 3 documents, 10 sets, ")
    assert job.attempts == 1
    assert Document.objects.filter(project=job.project).count() == 3


@pytest.mark.django_db
def test_import_task_with_a_bad_file_fails_and_stores_nothing(tab_sample_path, tmp_path):
    doc_id, mention_id = corrupt_document(tab_sample_path, tmp_path / "bad.json", 2)
    job = import_job(ProjectFactory.create(), tmp_path / "bad.json")
    before = table_counts(skip=("jobs.Job",))

    TASKS["import"].apply(args=[job.pk])

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error.startswith(f"document {doc_id!r}, mention {mention_id!r}: offsets")
    assert "Traceback" not in job.error  # a user error: the message is the whole story
    assert table_counts(skip=("jobs.Job",)) == before


@pytest.mark.django_db
def test_unexpected_errors_fail_the_job_without_server_paths(tmp_path, caplog):
    job = import_job(ProjectFactory.create(), tmp_path / "missing.json")
    with caplog.at_level("ERROR", logger="jobs.services"):
        TASKS["import"].apply(args=[job.pk])
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error == "FileNotFoundError: [Errno 2] No such file or directory: 'missing.json'"
    assert "Traceback" not in job.log_tail and str(tmp_path) not in job.log_tail
    # The traceback goes to the log, for admins.
    assert "Traceback" in caplog.text and str(tmp_path / "missing.json") in caplog.text


@pytest.mark.django_db
def test_delete_after_removes_the_uploaded_file(
    tab_sample_path, tmp_path, django_capture_on_commit_callbacks
):
    upload = tmp_path / "upload.json"
    upload.write_bytes(tab_sample_path.read_bytes())
    job = import_job(ProjectFactory.create(), upload, delete_after=True)
    # Removed once the job's end is committed (jobs.services._finish).
    with django_capture_on_commit_callbacks(execute=True):
        TASKS["import"].apply(args=[job.pk])
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert not upload.exists()


@pytest.mark.django_db
def test_delete_after_removes_the_upload_of_a_failed_import(
    tab_sample_path, tmp_path, django_capture_on_commit_callbacks
):
    upload = tmp_path / "upload.json"
    corrupt_document(tab_sample_path, upload, 0)
    job = import_job(ProjectFactory.create(), upload, delete_after=True)
    # Removed once the job's end is committed (jobs.services._finish).
    with django_capture_on_commit_callbacks(execute=True):
        TASKS["import"].apply(args=[job.pk])
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert not upload.exists()


@pytest.mark.django_db
def test_a_cancellation_after_the_work_committed_reports_success():
    job = JobFactory.create()
    job_start(job_id=job.pk)

    def body(job: Job, reporter: Reporter) -> dict[str, Any]:
        job_cancel(job=Job.objects.get(pk=job.pk))  # arrives while the task finishes
        return {"n": 1}

    run_job(SimpleNamespace(request=SimpleNamespace(id="", retries=0), max_retries=0), job.pk, body)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert job.result == {"n": 1}
    assert job.log_tail.rstrip().endswith("done; finished before the cancellation took effect")


@pytest.mark.django_db
@pytest.mark.parametrize("status", [JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED])
def test_running_a_finished_job_again_does_nothing(tab_sample_path, status):
    job = import_job(ProjectFactory.create(), tab_sample_path)
    job.status = status
    job.save()

    TASKS["import"].apply(args=[job.pk])

    job.refresh_from_db()
    assert (job.status, job.attempts, job.log_tail) == (status, 0, "")
    assert not Document.objects.exists()


def _task(task_id: str = "t1", retries: int = 0, max_retries: int = 0) -> Any:
    return SimpleNamespace(
        request=SimpleNamespace(id=task_id, retries=retries), max_retries=max_retries
    )


@pytest.mark.django_db
def test_a_job_cancelled_while_running_stops_at_its_next_report_and_stays_cancelled():
    job = JobFactory.create()
    reached: list[str] = []

    def body(running: Job, reporter: Reporter) -> dict[str, Any]:
        job_cancel(job=Job.objects.get(pk=running.pk))
        reporter(1, 10)  # the next progress report notices the cancellation
        reached.append("after the report")
        return {"documents": 1}

    run_job(_task(), job.pk, body)

    assert reached == []
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    assert job.result == {}
    assert job.progress_done == 0


@pytest.mark.django_db
def test_transient_errors_fail_the_job_once_retries_are_exhausted():
    job = JobFactory.create()

    def body(running: Job, reporter: Reporter) -> dict[str, Any]:
        raise OperationalError("server closed the connection unexpectedly")

    run_job(_task(retries=3, max_retries=3), job.pk, body)

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert "server closed the connection" in job.error


class RetryRequested(Exception):
    pass


@pytest.mark.django_db(transaction=True)
def test_a_transient_error_after_cancellation_does_not_revive_the_job():
    job = JobFactory.create()

    def retry(exc: BaseException, countdown: int) -> BaseException:
        return RetryRequested(countdown)

    task = _task(max_retries=3)
    task.retry = retry

    def body(running: Job, reporter: Reporter) -> dict[str, Any]:
        job_cancel(job=Job.objects.get(pk=running.pk))
        raise OperationalError("server closed the connection unexpectedly")

    with pytest.raises(RetryRequested):
        run_job(task, job.pk, body)

    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED


@pytest.mark.django_db
def test_reporter_throttles_progress_but_always_writes_messages():
    job = JobFactory.create()
    job_start(job_id=job.pk)
    reporter = Reporter(job.pk, min_seconds=3600)
    reporter(150, 1000)
    reporter(200, 1000)  # within the interval of the last write: skipped
    job.refresh_from_db()
    assert job.progress_done == 150
    reporter(210, 1000, "a message")
    job.refresh_from_db()
    assert job.progress_done == 210
    assert job.log_tail.endswith("a message\n")
    reporter(1000, 1000)  # the end always goes through
    job.refresh_from_db()
    assert job.progress_done == 1000


# --- through a real worker ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_worker_imports_a_large_file(celery_worker: CeleryWorker, tab_sample_path, tmp_path):
    path = tmp_path / "large.json"
    expected = write_large_tab(tab_sample_path, path, 300)
    assert path.stat().st_size > 5_000_000
    project = project_create(name="large")

    job = job_create(kind="import", params={"path": str(path), "format": "tab"}, project=project)
    job, observed = celery_worker.wait_for_job(job.pk, timeout=120)

    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.celery_task_id
    assert job.attempts == 1
    assert job.progress_total == path.stat().st_size
    assert job.progress_done == job.progress_total
    # Progress is committed on its own connection while the import's single
    # transaction is still open, so it was visible half way.
    assert any(0 < done < total for done, total in observed), observed[-5:]
    assert job.result == {**expected, "users_created": job.result["users_created"]}
    assert set(job.result["users_created"]) == {
        f"annotator{n}@import.{project.pk}" for n in (1, 3, 4, 5, 6, 7, 8, 12)
    }
    log = [line.split(" ", 1)[1] for line in job.log_tail.splitlines()]
    assert log == [
        "importing large.json (tab)",
        f"imported 300 documents, {expected['annotation_sets']} sets, {expected['spans']} spans",
    ]
    assert Document.objects.filter(project=project).count() == 300
    assert (
        AnnotationSet.objects.filter(document__project=project).count()
        == (expected["annotation_sets"])
    )
    assert (
        Span.objects.filter(annotation_set__document__project=project).count()
        == (expected["spans"])
    )
    late = Document.objects.get(project=project, external_id="001-61807-00297")
    assert late.position == 297
    assert late.target_person == "Galip Yalman"


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_worker_fails_a_bad_import_and_stores_nothing(
    celery_worker: CeleryWorker, tab_sample_path, tmp_path
):
    doc_id, mention_id = corrupt_document(tab_sample_path, tmp_path / "bad.json", 2)
    project = project_create(name="bad")
    before = table_counts()

    job = job_create(
        kind="import",
        params={"path": str(tmp_path / "bad.json"), "format": "tab"},
        project=project,
    )
    job, _ = celery_worker.wait_for_job(job.pk, timeout=120)

    assert job.status == JobStatus.FAILED
    assert job.error.startswith(f"document {doc_id!r}, mention {mention_id!r}: offsets")
    assert f"failed: document {doc_id!r}" in job.log_tail
    # Two documents, their sets and new annotator accounts were written before the
    # error; the worker's transaction rolled all of it back. Only the job row is new.
    after = table_counts()
    assert after.pop("jobs.Job") == before.pop("jobs.Job") + 1
    assert after == before


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_import_command_in_the_background(celery_worker: CeleryWorker, tab_sample_path):
    out = StringIO()
    call_command(
        "import_documents", "--project", "bg", "--format", "tab", "--background",
        str(tab_sample_path), stdout=out,
    )  # fmt: skip

    job = Job.objects.get(project__name="bg")
    assert f"Queued import job #{job.pk}" in out.getvalue()
    job, _ = celery_worker.wait_for_job(job.pk, timeout=120)
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.result["documents"] == 3
    assert Document.objects.filter(project__name="bg").count() == 3


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_worker_ignores_the_task_of_a_finished_job(celery_worker: CeleryWorker, tab_sample_path):
    from sanitizer_app.celery import app

    project = project_create(name="once")
    job = job_create(
        kind="import", params={"path": str(tab_sample_path), "format": "tab"}, project=project
    )
    job, _ = celery_worker.wait_for_job(job.pk, timeout=120)
    assert job.status == JobStatus.SUCCEEDED, job.error
    before = table_counts(skip=("jobs.Job",))
    finished = (job.status, job.attempts, job.finished_at, job.log_tail, job.result)

    again = app.send_task("sanitizer.import_documents", args=[job.pk], queue="cpu")
    celery_worker.wait_for_log(rf"Task sanitizer\.import_documents\[{again.id}\] succeeded")

    assert f"job {job.pk} has nothing to do" in celery_worker.log()
    job.refresh_from_db()
    assert (job.status, job.attempts, job.finished_at, job.log_tail, job.result) == finished
    assert table_counts(skip=("jobs.Job",)) == before
    assert Document.objects.filter(project=project).count() == 3
