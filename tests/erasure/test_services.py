"""Erasure services against PostgreSQL: rows gone, files gone only after the commit,
models deleted or marked, and an audit record that names nothing it erased."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import ApiToken
from annotation.models import (
    AnnotationSet,
    Assignment,
    Document,
    Invitation,
    Membership,
    Project,
    SetKind,
    SpanEvent,
)
from common.errors import DomainError
from erasure.models import ErasureKind, ErasureRecord
from erasure.services import document_erase, project_erase, user_data_erase
from jobs.models import Job, JobStatus
from knowledge.models import KnowledgeBase
from ml.models import ModelVersion
from tests.erasure.helpers import (
    Scene,
    build_scene,
    folder_with_file,
    model_at,
    rows_of_documents,
)
from tests.factories import (
    AnnotationSetFactory,
    DocumentFactory,
    MembershipFactory,
    ProjectFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db
LATER = timedelta(hours=1)
EARLIER = timedelta(hours=-1)


@pytest.fixture
def storage(settings: Any, tmp_path: Path) -> tuple[Path, Path]:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.MODEL_DIR = tmp_path / "models"
    return settings.UPLOAD_DIR, settings.MODEL_DIR


@pytest.fixture
def scene(storage: tuple[Path, Path]) -> Scene:
    return build_scene(*storage)


def _record_text(record: ErasureRecord) -> str:
    return json.dumps(
        {
            "removed": record.removed,
            "reason": record.reason,
            "label": record.label,
            "str": str(record),
        }
    )


def test_erasing_a_document_removes_it_and_everything_about_it(
    scene: Scene, storage: tuple[Path, Path], django_capture_on_commit_callbacks: Any
) -> None:
    _, model_dir = storage
    # Registered after both documents: it learnt from the other one too, so it is marked.
    partly = model_at(scene.project, folder_with_file(model_dir / "partly"), age=LATER)
    partly.is_active = True
    partly.save()
    before = model_at(scene.project, folder_with_file(model_dir / "before"), age=EARLIER * 24)
    document_id = scene.document.pk

    with django_capture_on_commit_callbacks(execute=True):
        record = document_erase(document=scene.document, actor=scene.admin, reason="request 17")

    assert rows_of_documents([document_id]) == {
        "documents": 0,
        "annotation_sets": 0,
        "spans": 0,
        "span_events": 0,
        "risk_assessments": 0,
        "reid_targets": 0,
    }
    assert not Assignment.objects.filter(document_id=document_id).exists()
    # The other document is untouched.
    assert rows_of_documents([scene.other_document.pk])["spans"] == 3
    partly.refresh_from_db()
    assert partly.trained_on_erased_data_at is not None and not partly.is_active
    assert Path(partly.artefact_path).exists()
    before.refresh_from_db()
    assert before.trained_on_erased_data_at is None
    # The project's active jobs were cancelled (one may be reading the document).
    assert Job.objects.get(pk=scene.queued_job.pk).status == JobStatus.CANCELLED
    assert not scene.job_upload.exists()
    assert record.kind == ErasureKind.DOCUMENT
    assert (record.object_id, record.project_id) == (document_id, scene.project.pk)
    assert record.actor == scene.admin and record.reason == "request 17"
    assert record.removed == {
        "documents": 1,
        "annotation_sets": 3,
        "spans": 3,
        "span_events": 3,
        "assignments": 1,
        "risk_assessments": 1,
        "reid_targets": 1,
    }
    assert record.models_marked == [partly.pk] and record.models_deleted == []
    assert record.jobs_cancelled == [scene.queued_job.pk]
    assert "Galip" not in _record_text(record) and "judgment" not in _record_text(record)


def test_a_model_trained_only_on_the_erased_document_is_deleted_with_its_folder_after_commit(
    storage: tuple[Path, Path], django_capture_on_commit_callbacks: Any
) -> None:
    _, model_dir = storage
    project = ProjectFactory.create()
    document = DocumentFactory.create(project=project)
    folder = folder_with_file(model_dir / "only-this")
    only = model_at(project, folder, age=LATER)
    # Added after the model was trained: the model cannot have learnt from it.
    later = DocumentFactory.create(project=project)
    Document.objects.filter(pk=later.pk).update(created_at=timezone.now() + 2 * LATER)
    admin = UserFactory.create()

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        record = document_erase(document=document, actor=admin, reason="consent withdrawn")
        assert folder.exists()  # nothing leaves the disk before the commit
    assert not ModelVersion.objects.filter(pk=only.pk).exists()
    assert folder.exists() and record.files_scheduled == 1
    for callback in callbacks:
        callback()
    assert not folder.exists()
    record.refresh_from_db()
    assert (record.files_removed, record.files_failed) == (1, 0)
    assert record.files_removed_at is not None
    assert record.models_deleted == [only.pk]


def test_erasing_a_project_removes_its_rows_models_knowledge_bases_and_uploads(
    scene: Scene, storage: tuple[Path, Path], django_capture_on_commit_callbacks: Any
) -> None:
    _, model_dir = storage
    own = model_at(scene.project, folder_with_file(model_dir / "own"), age=LATER)
    shared = model_at(None, folder_with_file(model_dir / "shared"), age=LATER, name="shared")
    outside = model_at(scene.project, folder_with_file(storage[0].parent / "elsewhere"), age=LATER)
    other_project = ProjectFactory.create()
    other_document = DocumentFactory.create(project=other_project)
    project_id = scene.project.pk
    document_ids = [scene.document.pk, scene.other_document.pk]

    with django_capture_on_commit_callbacks(execute=True):
        record = project_erase(project=scene.project, actor=scene.admin, reason="end of study")

    assert not Project.objects.filter(pk=project_id).exists()
    assert set(rows_of_documents(document_ids).values()) == {0}
    assert not Job.objects.filter(project_id=project_id).exists()
    assert not KnowledgeBase.objects.filter(project_id=project_id).exists()
    assert not ModelVersion.objects.filter(pk__in=[own.pk, outside.pk]).exists()
    assert not Membership.objects.filter(project_id=project_id).exists()
    assert not Invitation.objects.filter(project_id=project_id).exists()
    for gone in (Path(own.artefact_path), scene.job_upload, scene.kb_source, scene.kb_index):
        assert not gone.exists(), gone
    # Outside the app's storage: kept (someone else's folder), and counted.
    assert Path(outside.artefact_path).exists()
    assert (
        Path(shared.artefact_path).exists() and ModelVersion.objects.filter(pk=shared.pk).exists()
    )
    assert Document.objects.filter(pk=other_document.pk).exists()
    assert record.kind == ErasureKind.PROJECT and record.object_id == project_id
    assert sorted(record.models_deleted) == sorted([own.pk, outside.pk])
    assert record.jobs_cancelled == [scene.queued_job.pk]
    assert record.removed["documents"] == 2 and record.removed["spans"] == 6
    assert record.removed["jobs"] == 2 and record.removed["knowledge_bases"] == 1
    assert record.removed["files_outside_storage_kept"] == 1
    record.refresh_from_db()
    assert (record.files_scheduled, record.files_removed, record.files_failed) == (4, 4, 0)
    assert "erasure project" not in _record_text(record)


def test_a_failed_erasure_changes_nothing_and_removes_no_file(
    scene: Scene,
    storage: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    folder = folder_with_file(storage[1] / "kept")
    model = model_at(scene.project, folder, age=LATER)

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr("erasure.services.projects.record_create", broken)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        project_erase(project=scene.project, actor=scene.admin, reason="end of study")

    assert Project.objects.filter(pk=scene.project.pk).exists()
    assert ModelVersion.objects.filter(pk=model.pk).exists()
    assert Job.objects.get(pk=scene.queued_job.pk).status == JobStatus.QUEUED
    assert folder.exists() and scene.job_upload.exists() and scene.kb_index.exists()
    assert not ErasureRecord.objects.exists()


def test_an_erasure_needs_a_reason(scene: Scene) -> None:
    with pytest.raises(DomainError, match="reason"):
        document_erase(document=scene.document, actor=scene.admin, reason="   ")
    with pytest.raises(DomainError, match="longer"):
        document_erase(document=scene.document, actor=scene.admin, reason="x" * 1001)
    assert Document.objects.filter(pk=scene.document.pk).exists()


def test_erasing_a_users_data_removes_their_decisions_and_anonymises_the_account(
    scene: Scene, storage: tuple[Path, Path], django_capture_on_commit_callbacks: Any
) -> None:
    staff = UserFactory.create(username="erasure-staff", is_staff=True)
    user = scene.annotator
    model = model_at(scene.project, folder_with_file(storage[1] / "learnt"), age=LATER)
    unrelated = model_at(None, folder_with_file(storage[1] / "shared"), age=LATER, name="s")

    with django_capture_on_commit_callbacks(execute=True):
        record = user_data_erase(user=user, actor=staff, reason="account holder asked")

    assert not AnnotationSet.history.filter(annotator_id=user.pk).exists()
    # The project's machine runs and gold sets stay; so do their audit events.
    assert AnnotationSet.objects.filter(document=scene.document, kind=SetKind.GOLD).exists()
    assert SpanEvent.objects.filter(user_id=user.pk, annotation_set__kind=SetKind.GOLD).exists()
    assert not Assignment.objects.filter(user_id=user.pk).exists()
    assert not Membership.objects.filter(user_id=user.pk).exists()
    assert not ApiToken.objects.filter(user_id=user.pk).exists()
    account = get_user_model().objects.get(pk=user.pk)
    assert account.username == f"erased-user-{user.pk}"
    assert account.email == "" and not account.is_active and not account.has_usable_password()
    model.refresh_from_db()
    assert model.trained_on_erased_data_at is not None
    unrelated.refresh_from_db()
    assert unrelated.trained_on_erased_data_at is None
    assert record.kind == ErasureKind.USER and record.object_id == user.pk
    assert record.models_marked == [model.pk]
    assert record.removed["annotation_sets"] == 2 and record.removed["api_tokens"] == 1
    assert record.removed["projects_left_without_admin"] == []
    assert "erasure-annotator" not in _record_text(record)
    # The project's documents stay.
    assert Document.objects.filter(pk=scene.document.pk).exists()


def test_a_user_erasure_names_projects_left_without_an_admin(scene: Scene) -> None:
    staff = UserFactory.create(username="root", is_staff=True, is_superuser=True)
    record = user_data_erase(user=scene.admin, actor=staff, reason="left the organisation")
    assert record.removed["projects_left_without_admin"] == [scene.project.pk]


def test_nobody_erases_their_own_data_and_only_a_superuser_erases_staff(scene: Scene) -> None:
    staff = UserFactory.create(username="staffer", is_staff=True)
    other_staff = UserFactory.create(username="staffer-2", is_staff=True)
    with pytest.raises(DomainError, match="your own"):
        user_data_erase(user=staff, actor=staff, reason="mistake")
    with pytest.raises(DomainError, match="superuser"):
        user_data_erase(user=other_staff, actor=staff, reason="mistake")
    assert get_user_model().objects.get(pk=other_staff.pk).username == "staffer-2"


def test_a_folder_another_model_still_names_is_kept(
    storage: tuple[Path, Path], django_capture_on_commit_callbacks: Any
) -> None:
    project = ProjectFactory.create()
    document = DocumentFactory.create(project=project)
    folder = folder_with_file(storage[1] / "shared-folder")
    erased = model_at(project, folder, age=LATER)
    survivor = model_at(None, folder, age=LATER, name="shared")

    with django_capture_on_commit_callbacks(execute=True):
        record = document_erase(document=document, actor=None, reason="duplicate")

    assert record.models_deleted == [erased.pk] and record.actor is None
    assert ModelVersion.objects.filter(pk=survivor.pk).exists() and folder.exists()
    assert record.removed["files_in_use_kept"] == 1 and record.files_scheduled == 0


def _stand_in(username: str) -> Any:
    """An import-only annotator as annotation.services.imports makes them."""
    user = UserFactory.create(username=username, is_active=False)
    user.set_unusable_password()
    user.save()
    return user


def test_erasing_a_project_deletes_the_stand_ins_its_imports_made(scene: Scene) -> None:
    project = scene.project
    own = _stand_in(f"ann@import.{project.pk}")
    MembershipFactory.create(project=project, user=own)
    AnnotationSetFactory.create(document=scene.document, annotator=own)
    elsewhere = ProjectFactory.create()
    theirs = _stand_in(f"ann@import.{elsewhere.pk}")
    MembershipFactory.create(project=elsewhere, user=theirs)
    real = UserFactory.create(username="ann")

    record = project_erase(project=project, actor=scene.admin, reason="end of study")

    assert not get_user_model().objects.filter(pk=own.pk).exists()
    assert get_user_model().objects.filter(pk__in=[theirs.pk, real.pk]).count() == 2
    assert record.removed["import_stand_ins"] == 1
