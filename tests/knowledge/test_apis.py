"""Knowledge-base API: permissions, validation, and the KB and distant-labelling jobs
through a real Celery worker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.models import AnnotationSet, Role, SetKind, SetSource
from annotation.services import assignment_create
from jobs.models import Job, JobStatus
from jobs.services import JobStateError, job_create
from knowledge.models import KbStatus, KnowledgeBase
from knowledge.services import knowledge_base_create
from tests.factories import DocumentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.knowledge.test_services import PEOPLE

if TYPE_CHECKING:
    from tests.celery_worker import CeleryWorker

pytest_plugins = ["tests.celery_worker"]

ROLES = ("annotator", "reviewer", "admin")


def _kb_bytes() -> bytes:
    return ("\n".join(json.dumps({**p, "aliases": []}) for p in PEOPLE) + "\n").encode()


@pytest.fixture
def media(settings, tmp_path: Path) -> Path:
    settings.MODEL_DIR = tmp_path / "models"
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return tmp_path


def _world() -> dict[str, Any]:
    project = ProjectFactory.create(name="kb project", k_anonymity=2)
    other = ProjectFactory.create(name="other kb project")
    users = {role: UserFactory.create(username=f"kb-{role}") for role in ROLES}
    users["outsider"] = UserFactory.create(username="kb-outsider")
    for role in ROLES:
        MembershipFactory.create(project=project, user=users[role], role=role)
    MembershipFactory.create(project=other, user=users["outsider"], role=Role.ADMIN)
    return {"project": project, "other": other, "users": users}


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _upload(client: APIClient, project_id: int) -> Any:
    upload = SimpleUploadedFile("kb.jsonl", _kb_bytes(), content_type="application/jsonl")
    return client.post(
        f"/api/projects/{project_id}/knowledge-bases/upload/",
        {"file": upload, "format": "jsonl", "name": "five people"},
        format="multipart",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("caller", "expected"),
    [("outsider", 404), ("annotator", 403), ("reviewer", 403), ("admin", 202)],
)
def test_only_project_admins_upload_knowledge_bases(
    media, django_capture_on_commit_callbacks, caller, expected
):
    world = _world()
    with django_capture_on_commit_callbacks(execute=False):
        response = _upload(_client(world["users"][caller]), world["project"].pk)
    assert response.status_code == expected, response.content
    if expected == 202:
        body = response.json()
        assert body["knowledge_base"]["status"] == KbStatus.BUILDING
        assert body["job"]["kind"] == "kb_import"
    else:
        assert not KnowledgeBase.objects.exists()


@pytest.mark.django_db
def test_anonymous_sees_nothing(media):
    world = _world()
    knowledge_base_create(
        name="k",
        source_path=_write_kb(media),
        source_format="jsonl",
        project=world["project"],
        background=False,
    )
    assert APIClient().get("/api/knowledge-bases/").status_code in (401, 403)


def _write_kb(folder: Path) -> Path:
    path = folder / "kb.jsonl"
    path.write_bytes(_kb_bytes())
    return path


@pytest.mark.django_db
def test_knowledge_bases_are_listed_only_inside_their_project(media):
    world = _world()
    own = knowledge_base_create(
        name="own",
        source_path=_write_kb(media),
        source_format="jsonl",
        project=world["project"],
        background=False,
    )
    foreign = knowledge_base_create(
        name="foreign",
        source_path=_write_kb(media),
        source_format="jsonl",
        project=world["other"],
        background=False,
    )
    shared = knowledge_base_create(
        name="shared", source_path=_write_kb(media), source_format="jsonl", background=False
    )
    names = {
        kb["name"]
        for kb in _client(world["users"]["annotator"])
        .get("/api/knowledge-bases/")
        .json()["results"]
    }
    assert names == {"own", "shared"}
    client = _client(world["users"]["annotator"])
    assert client.get(f"/api/knowledge-bases/{own.pk}/").status_code == 200
    assert client.get(f"/api/knowledge-bases/{shared.pk}/").status_code == 200
    assert client.get(f"/api/knowledge-bases/{foreign.pk}/").status_code == 404


@pytest.mark.django_db
def test_distant_labelling_refuses_another_projects_knowledge_base(
    media, django_capture_on_commit_callbacks
):
    world = _world()
    foreign = knowledge_base_create(
        name="foreign",
        source_path=_write_kb(media),
        source_format="jsonl",
        project=world["other"],
        background=False,
    )
    admin = _client(world["users"]["admin"])
    url = f"/api/projects/{world['project'].pk}/distant-label/"
    with django_capture_on_commit_callbacks(execute=False):
        response = admin.post(url, {"knowledge_base": foreign.pk}, format="json")
        assert response.status_code == 400
        # The generic job endpoint applies the same rule.
        response = admin.post(
            f"/api/projects/{world['project'].pk}/jobs/create/",
            {"kind": "distant_label", "params": {"knowledge_base_id": foreign.pk, "k": 2}},
            format="json",
        )
        assert response.status_code == 400, response.content
        with pytest.raises(JobStateError):
            job_create(
                kind="kb_import",
                params={"knowledge_base_id": foreign.pk},
                project=world["project"],
            )
    assert not Job.objects.filter(kind="distant_label").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("caller", "expected"),
    [("outsider", 404), ("annotator", 403), ("reviewer", 403), ("admin", 201)],
)
def test_only_admins_start_distant_labelling(
    media, django_capture_on_commit_callbacks, caller, expected
):
    world = _world()
    kb = knowledge_base_create(
        name="own",
        source_path=_write_kb(media),
        source_format="jsonl",
        project=world["project"],
        background=False,
    )
    with django_capture_on_commit_callbacks(execute=False):
        response = _client(world["users"][caller]).post(
            f"/api/projects/{world['project'].pk}/distant-label/",
            {"knowledge_base": kb.pk, "max_arity": 2},
            format="json",
        )
    assert response.status_code == expected, response.content
    if expected == 201:
        assert response.json()["params"] == {
            "knowledge_base_id": kb.pk,
            "k": 2,  # the project's k
            "max_arity": 2,
            "selection": "greedy",
            "seed": 0,
        }


def test_every_knowledge_route_is_tested():
    from knowledge import urls

    tested = {
        "knowledge-base-list",
        "knowledge-base-detail",
        "knowledge-base-upload",
        "distant-label-start",
    }
    assert {p.name for p in urls.urlpatterns} == tested


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_upload_index_and_label_through_a_real_worker(celery_worker: CeleryWorker, media):
    world = _world()
    document = DocumentFactory.create(
        project=world["project"],
        text="She lives in Lisbon. She was born in Freamunde.",
        external_id="d1",
    )
    admin = _client(world["users"]["admin"])
    response = _upload(admin, world["project"].pk)
    assert response.status_code == 202, response.content
    kb_job, _ = celery_worker.wait_for_job(response.json()["job"]["id"], timeout=180)
    assert kb_job.status == JobStatus.SUCCEEDED, kb_job.error
    kb = KnowledgeBase.objects.get(pk=response.json()["knowledge_base"]["id"])
    assert kb.status == KbStatus.READY and kb.n_persons == 5
    assert kb_job.result["persons"] == 5

    response = admin.post(
        f"/api/projects/{world['project'].pk}/distant-label/",
        {"knowledge_base": kb.pk, "max_arity": 2},
        format="json",
    )
    assert response.status_code == 201, response.content
    job, _ = celery_worker.wait_for_job(response.json()["id"], timeout=240)
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.progress_done == job.progress_total == 1
    machine = AnnotationSet.objects.get(document=document, kind=SetKind.MACHINE, job=job)
    assert machine.source == SetSource.DISTANT
    assert [(s.text, s.attrs["count"]) for s in machine.spans.all()] == [("Freamunde", 1)]
    # Annotators see the suggestion, with its explanation, through the API.
    assignment_create(document=document, user=world["users"]["annotator"])
    annotator = _client(world["users"]["annotator"])
    sets = annotator.get(f"/api/documents/{document.pk}/annotation-sets/").json()["results"]
    distant = [s for s in sets if s["source"] == SetSource.DISTANT]
    assert len(distant) == 1
    detail = annotator.get(f"/api/annotation-sets/{distant[0]['id']}/").json()
    assert [span["attrs"]["combination"] for span in detail["spans"]] == [["freamunde", "lisbon"]]


TINY_MASKER = {
    "max_length": 32,
    "window_overlap": 8,
    "batch_size": 4,
    "epochs": 1,
    "max_steps": 8,
    "num_threads": 1,
    "learning_rate": 5e-4,
}


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_masker_training_job_and_its_suggestions(celery_worker: CeleryWorker, media):
    from ml.models import ModelKind, ModelVersion
    from ml.services.preannotation import preannotate_documents
    from sanitizer.types import SEMANTIC_TYPES

    world = _world()
    project = world["project"]
    for i, person in enumerate(PEOPLE * 2):
        attrs = person["attributes"]
        DocumentFactory.create(
            project=project,
            external_id=f"bio-{i}",
            text=f"{person['name']} lives in {attrs['residence'][0]}. "
            f"Born in {attrs['place of birth'][0]}.",
        )
    kb = knowledge_base_create(
        name="five",
        source_path=_write_kb(media),
        source_format="jsonl",
        project=project,
        background=False,
    )
    job = job_create(
        kind="train_masker",
        params={"knowledge_base_id": kb.pk, "k": 2, "max_arity": 2, **TINY_MASKER},
        project=project,
        created_by=world["users"]["admin"],
    )
    job, _ = celery_worker.wait_for_job(job.pk, timeout=400)
    assert job.status == JobStatus.SUCCEEDED, job.error
    model_version = ModelVersion.objects.get(pk=job.result["model_version_id"])
    assert model_version.kind == ModelKind.MASKER
    assert model_version.config["labels"] == ["MASK"] and model_version.config["k"] == 2
    assert model_version.training_summary["train_documents"] == 9
    # Train and dev documents (the dev one chooses the kept checkpoint).
    assert model_version.trained_on_documents == sorted(
        project.documents.values_list("pk", flat=True)
    )
    assert Path(model_version.artefact_path, "sanitizer_model.json").exists()

    # Its suggestions are stored with a semantic type and the model's version.
    result = preannotate_documents(project=project, model_version=model_version)
    assert result["model_version_id"] == model_version.pk
    machine = AnnotationSet.objects.filter(model_version=model_version)
    assert machine.count() == len(PEOPLE) * 2
    for annotation_set in machine:
        assert annotation_set.source == SetSource.MODEL
        assert annotation_set.source_version.endswith(model_version.version)
        for span in annotation_set.spans.all():
            assert span.entity_type in SEMANTIC_TYPES
