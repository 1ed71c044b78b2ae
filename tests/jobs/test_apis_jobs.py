"""Jobs and document imports through the API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.models import Document, Span
from jobs.models import Job, JobStatus
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import JobFactory, UserFactory


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


@pytest.fixture
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


@pytest.fixture
def sent_tasks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any], str]]:
    """Records what would go to the broker instead of sending it."""
    from sanitizer_app.celery import app

    sent: list[tuple[str, list[Any], str]] = []

    class Result:
        id = "task-id"

    def send_task(name: str, args: list[Any], queue: str) -> Result:
        sent.append((name, args, queue))
        return Result()

    monkeypatch.setattr(app, "send_task", send_task)
    return sent


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def test_import_queues_a_job_that_imports_the_upload(
    world: World,
    tab_sample_path: Path,
    upload_dir: Path,
    sent_tasks: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = world.client("admin").post(
            f"/api/projects/{world.project.pk}/import/",
            {"file": upload("tab.json", tab_sample_path.read_bytes()), "format": "tab"},
            format="multipart",
        )
    assert response.status_code == 202, response.content
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.kind, job.status, job.created_by) == ("import", "queued", world.users["admin"])
    path = Path(job.params["path"])
    assert path.parent == upload_dir and path.exists()
    assert job.params["format"] == "tab" and job.params["delete_after"] is True
    assert sent_tasks == [("sanitizer.import_documents", [job.pk], "cpu")]

    from workers.tasks import TASKS

    # The upload is removed once the job's success is committed.
    with django_capture_on_commit_callbacks(execute=True):
        TASKS["import"].apply(args=[job.pk])
    detail = world.client("admin").get(f"/api/jobs/{job.pk}/").json()
    assert detail["status"] == JobStatus.SUCCEEDED, detail["error"]
    assert detail["result"]["documents"] == 3
    assert "imported 3 documents" in detail["log_tail"]
    assert detail["progress_done"] == detail["progress_total"] > 0
    assert Document.objects.filter(project=world.project).count() == 5
    assert not path.exists()


def test_sync_import_returns_the_summary(
    world: World, tab_sample_path: Path, upload_dir: Path
) -> None:
    response = world.client("admin").post(
        f"/api/projects/{world.project.pk}/import/",
        {"file": upload("tab.json", tab_sample_path.read_bytes()), "format": "tab", "sync": True},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    summary = response.json()
    assert summary["documents"] == 3
    assert (
        summary["spans"]
        == Span.objects.filter(
            annotation_set__document__project=world.project, annotation_set__source="import"
        ).count()
    )
    assert list(upload_dir.iterdir()) == []


def test_sync_text_import_names_the_document_after_the_file(world: World, upload_dir: Path) -> None:
    response = world.client("admin").post(
        f"/api/projects/{world.project.pk}/import/",
        {
            "file": upload("case 42.txt", b"Ms Smith lives in Oslo."),
            "format": "text",
            "sync": True,
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert Document.objects.get(project=world.project, external_id="case_42").text.startswith("Ms")
    assert list(upload_dir.iterdir()) == []


def test_sync_import_of_a_broken_file_names_document_and_mention(
    world: World, upload_dir: Path
) -> None:
    broken = [
        {
            "doc_id": "good",
            "text": "Anna lives in Rome.",
            "annotations": {},
        },
        {
            "doc_id": "bad",
            "text": "Anna lives in Rome.",
            "annotations": {
                "ann": {
                    "entity_mentions": [
                        {
                            "entity_mention_id": "bad_em1",
                            "start_offset": 0,
                            "end_offset": 4,
                            "span_text": "Anne",
                            "entity_type": "PERSON",
                            "identifier_type": "DIRECT",
                        }
                    ]
                }
            },
        },
    ]
    response = world.client("admin").post(
        f"/api/projects/{world.project.pk}/import/",
        {"file": upload("bad.json", json.dumps(broken).encode()), "format": "tab", "sync": "true"},
        format="multipart",
    )
    assert response.status_code == 400
    body = response.json()
    assert (body["doc_id"], body["mention_id"]) == ("bad", "bad_em1")
    assert "differs from the text" in body["problem"]
    # All or nothing: the valid first document was rolled back too.
    assert not Document.objects.filter(external_id__in=["good", "bad"]).exists()
    assert list(upload_dir.iterdir()) == []


def test_sync_import_refuses_large_files(
    world: World, upload_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("annotation.apis.jobs.SYNC_IMPORT_MAX_BYTES", 10)
    response = world.client("admin").post(
        f"/api/projects/{world.project.pk}/import/",
        {
            "file": upload("a.jsonl", b'{"id": "a", "text": "long enough"}\n'),
            "format": "jsonl",
            "sync": True,
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert "sync" in response.json()
    assert not upload_dir.exists() or list(upload_dir.iterdir()) == []


def test_sync_import_refuses_files_of_many_tiny_documents(
    world: World, upload_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("annotation.apis.jobs.SYNC_IMPORT_MAX_DOCUMENTS", 3)
    lines = b"".join(b'{"id": "t%d", "text": "tiny"}\n' % i for i in range(4))
    before = Document.objects.count()
    response = world.client("admin").post(
        f"/api/projects/{world.project.pk}/import/",
        {"file": upload("tiny.jsonl", lines), "format": "jsonl", "sync": True},
        format="multipart",
    )
    assert response.status_code == 400
    assert "more than 3 documents: import it with a job" in json.dumps(response.json())
    # All or nothing: the three documents read before the fourth are gone too.
    assert Document.objects.count() == before
    assert not upload_dir.exists() or list(upload_dir.iterdir()) == []
    # Three pass.
    response = world.client("admin").post(
        f"/api/projects/{world.project.pk}/import/",
        {"file": upload("three.jsonl", lines.rsplit(b"\n", 2)[0] + b"\n"), "format": "jsonl",
         "sync": True},
        format="multipart",
    )  # fmt: skip
    assert response.status_code == 201, response.json()


def test_job_list_shows_administered_projects_only(world: World) -> None:
    foreign = JobFactory.create(project=world.other_project)
    assert [j["id"] for j in world.client("admin").get("/api/jobs/").json()["results"]] == [
        world.job.pk
    ]
    assert world.client("reviewer").get("/api/jobs/").json()["count"] == 0
    assert [j["id"] for j in world.client("outsider").get("/api/jobs/").json()["results"]] == [
        foreign.pk
    ]
    filtered = world.client("admin").get(f"/api/jobs/?project={world.project.pk}&status=running")
    assert filtered.json()["count"] == 0


def test_job_detail_reports_progress_and_log(world: World) -> None:
    Job.objects.filter(pk=world.job.pk).update(
        status=JobStatus.RUNNING, progress_done=3, progress_total=10, log_tail="12:00:00 working\n"
    )
    body = world.client("admin").get(f"/api/jobs/{world.job.pk}/").json()
    assert (body["status"], body["progress_done"], body["progress_total"]) == ("running", 3, 10)
    assert body["log_tail"].endswith("working\n")


def test_job_detail_and_list_show_how_a_fanned_out_job_spread(world: World) -> None:
    from jobs.models import JobChunk

    Job.objects.filter(pk=world.job.pk).update(status=JobStatus.RUNNING)
    for index, (status, worker) in enumerate(
        [(JobStatus.SUCCEEDED, "a@h"), (JobStatus.SUCCEEDED, "b@h"), (JobStatus.RUNNING, "a@h"),
         (JobStatus.QUEUED, "")]
    ):  # fmt: skip
        JobChunk.objects.create(job=world.job, index=index, status=status, worker=worker)
    expected = {
        "total": 4, "workers": 2, "queued": 1, "running": 1, "succeeded": 2, "failed": 0,
        "cancelled": 0,
    }  # fmt: skip
    client = world.client("admin")
    assert client.get(f"/api/jobs/{world.job.pk}/").json()["chunks"] == expected
    listed = client.get("/api/jobs/").json()["results"]
    assert [job["chunks"] for job in listed] == [expected]


def test_job_create_queues_known_kinds_only(
    world: World, sent_tasks: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    admin = world.client("admin")
    url = f"/api/projects/{world.project.pk}/jobs/create/"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(url, {"kind": "preannotate", "params": {"limit": 5}}, format="json")
    assert response.status_code == 201, response.content
    assert (response.json()["queue"], response.json()["params"]) == ("gpu", {"limit": 5})
    assert sent_tasks == [("sanitizer.preannotate", [response.json()["id"]], "gpu")]
    assert admin.post(url, {"kind": "mine_bitcoin"}, format="json").status_code == 400
    # An import names a server path: only the upload endpoint may create one.
    imported = admin.post(url, {"kind": "import", "params": {"path": "/etc/passwd"}}, format="json")
    assert imported.status_code == 400
    assert Job.objects.filter(project=world.project).count() == 2


def test_cancel_then_cancel_again(world: World) -> None:
    admin = world.client("admin")
    cancelled = admin.post(f"/api/jobs/{world.job.pk}/cancel/")
    assert cancelled.json()["status"] == JobStatus.CANCELLED
    assert "cancelled by admin-user" in cancelled.json()["log_tail"]
    again = admin.post(f"/api/jobs/{world.job.pk}/cancel/")
    assert again.status_code == 400
    assert "already cancelled" in again.json()["detail"]


def test_jobs_without_a_project_are_for_staff(world: World) -> None:
    shared = JobFactory.create(project=None)
    assert world.client("admin").get(f"/api/jobs/{shared.pk}/").status_code == 404
    staff = APIClient()
    staff.force_authenticate(UserFactory.create(username="staff", is_staff=True))
    assert staff.get(f"/api/jobs/{shared.pk}/").status_code == 200
    assert [j["id"] for j in staff.get("/api/jobs/").json()["results"]] == [shared.pk]


def test_one_entry_in_the_job_kind_table_makes_a_kind_the_job_api_accepts(
    world: World,
    sent_tasks: list[Any],
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.apps import apps as django_apps

    from jobs.kinds import job_kind_get, unregister_job_kind
    from jobs.services import JobStateError
    from workers import kinds

    def validate(params: dict[str, Any], project: Any) -> None:
        if params.get("n", 0) < 0:
            raise JobStateError("n must not be negative")

    entry = kinds.JobKindEntry(
        name="count_words",
        label="Count words",
        task_name="sanitizer.count_words",
        queue="cpu",
        validate=validate,
        soft_time_limit=60,
        time_limit=90,
        max_retries=0,
        body=lambda job, reporter: {"words": 0},
    )
    monkeypatch.setattr(kinds, "JOB_KINDS", (*kinds.JOB_KINDS, entry))
    # What Django does at start-up: the worker app registers its table.
    django_apps.get_app_config("workers").ready()
    try:
        assert job_kind_get("count_words") is entry
        assert kinds.task_queues()["sanitizer.count_words"] == "cpu"
        admin = world.client("admin")
        url = f"/api/projects/{world.project.pk}/jobs/create/"
        with django_capture_on_commit_callbacks(execute=True):
            response = admin.post(url, {"kind": "count_words", "params": {"n": 2}}, format="json")
        assert response.status_code == 201, response.content
        assert response.json()["kind"] == "count_words"
        assert sent_tasks == [("sanitizer.count_words", [response.json()["id"]], "cpu")]
        refused = admin.post(url, {"kind": "count_words", "params": {"n": -1}}, format="json")
        assert refused.status_code == 400
        assert "n must not be negative" in refused.content.decode()
    finally:
        unregister_job_kind("count_words")
