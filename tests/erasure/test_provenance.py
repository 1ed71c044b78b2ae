"""Which models an erasure reaches when they record the documents they were trained on
(``ModelVersion.trained_on_documents``), against PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from annotation.models import Document, Project
from erasure.services import document_erase, user_data_erase
from ml.models import ModelVersion
from tests.erasure.helpers import folder_with_file, model_at
from tests.factories import AnnotationSetFactory, DocumentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
LATER = timedelta(hours=1)
EARLIER = timedelta(hours=-1)


@pytest.fixture
def model_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.MODEL_DIR = tmp_path / "models"
    return Path(settings.MODEL_DIR)


@pytest.fixture
def project() -> Project:
    return ProjectFactory.create()


def _documents(project: Project, n: int) -> list[Document]:
    return [DocumentFactory.create(project=project, external_id=f"doc-{i}") for i in range(n)]


def _model(project: Project, folder: Path, read: list[Document] | None, **fields: Any) -> Any:
    ids = None if read is None else sorted(d.pk for d in read)
    return model_at(
        project, folder_with_file(folder), age=LATER, trained_on_documents=ids, **fields
    )


def test_a_model_that_never_read_the_erased_document_is_untouched(
    project: Project, model_dir: Path
) -> None:
    a, b, c = _documents(project, 3)
    # Registered after C was added (the date rule would mark it), but trained on A and B.
    model = _model(project, model_dir / "ab", [a, b], is_active=True)

    record = document_erase(document=c, actor=UserFactory.create(), reason="request 3")

    model.refresh_from_db()
    assert model.trained_on_erased_data_at is None and model.is_active
    assert record.models_marked == [] and record.models_deleted == []


def test_a_model_that_read_the_erased_document_and_others_is_marked(
    project: Project, model_dir: Path
) -> None:
    a, b, _ = _documents(project, 3)
    model = _model(project, model_dir / "ab", [a, b], is_active=True)

    record = document_erase(document=a, actor=UserFactory.create(), reason="request 4")

    model.refresh_from_db()
    assert model.trained_on_erased_data_at is not None and not model.is_active
    assert Path(model.artefact_path).exists()
    assert record.models_marked == [model.pk] and record.models_deleted == []


def test_a_model_that_read_only_the_erased_document_is_deleted_with_its_folder_after_commit(
    project: Project, model_dir: Path, django_capture_on_commit_callbacks: Any
) -> None:
    a, b = _documents(project, 2)
    folder = model_dir / "only-a"
    # B existed when it was registered: by dates it would only be marked.
    only = _model(project, folder, [a])
    other = _model(project, model_dir / "only-b", [b], name="other")
    # Without a record of its documents, the date rule decides: B remains, so marked.
    unknown = _model(project, model_dir / "unknown", None, name="unknown")

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        record = document_erase(document=a, actor=UserFactory.create(), reason="request 5")
        assert folder.exists()  # nothing leaves the disk before the commit
    assert not ModelVersion.objects.filter(pk=only.pk).exists()
    assert folder.exists() and record.files_scheduled == 1
    for callback in callbacks:
        callback()
    assert not folder.exists()
    assert record.models_deleted == [only.pk] and record.models_marked == [unknown.pk]
    other.refresh_from_db()
    assert other.trained_on_erased_data_at is None and Path(other.artefact_path).exists()


def test_an_empty_record_of_documents_is_never_reached(project: Project, model_dir: Path) -> None:
    (a,) = _documents(project, 1)
    model = _model(project, model_dir / "none-read", [])

    record = document_erase(document=a, actor=UserFactory.create(), reason="request 6")

    assert ModelVersion.objects.filter(pk=model.pk, trained_on_erased_data_at=None).exists()
    assert record.models_marked == [] and record.models_deleted == []


def test_a_user_erasure_marks_only_models_that_read_a_document_they_annotated(
    project: Project, model_dir: Path
) -> None:
    a, b, c = _documents(project, 3)
    user, other_user = UserFactory.create(), UserFactory.create()
    AnnotationSetFactory.create(document=a, annotator=user)
    AnnotationSetFactory.create(document=b, annotator=other_user)
    AnnotationSetFactory.create(document=c, annotator=other_user)
    read_a = _model(project, model_dir / "ab", [a, b], name="read-a")
    only_a = _model(project, model_dir / "a", [a], name="only-a")
    not_a = _model(project, model_dir / "bc", [b, c], name="not-a")
    # No record of its documents, registered after the user's set: marked by date.
    unknown = _model(project, model_dir / "unknown", None, name="unknown")
    # No record, registered before the user's set was started: untouched.
    old = model_at(project, folder_with_file(model_dir / "old"), age=EARLIER * 24, name="old")

    record = user_data_erase(user=user, actor=UserFactory.create(), reason="request 7")

    assert sorted(record.models_marked) == sorted([read_a.pk, only_a.pk, unknown.pk])
    # Marked, never deleted: the documents it read stay.
    assert record.models_deleted == []
    assert ModelVersion.objects.filter(pk=only_a.pk).exists()
    for untouched in (not_a, old):
        untouched.refresh_from_db()
        assert untouched.trained_on_erased_data_at is None
