"""Model versions: registering and activating, on the real database."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from ml.models import ModelKind, ModelVersion
from ml.services.model_versions import model_version_activate, model_version_create
from tests.factories import ModelVersionFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def active(kind: str = ModelKind.RECOGNIZER, project: Any = None) -> list[str]:
    return list(
        ModelVersion.objects.filter(kind=kind, project=project, is_active=True).values_list(
            "version", flat=True
        )
    )


def test_registering_keeps_the_documents_read_sorted_once_or_unknown():
    read = model_version_create(
        kind=ModelKind.RECOGNIZER,
        name="ner",
        version="read",
        artefact_path="/m/read",
        trained_on_documents=[5, 3, 5],
    )
    unknown = model_version_create(
        kind=ModelKind.RECOGNIZER, name="ner", version="unknown", artefact_path="/m/unknown"
    )
    read.refresh_from_db()
    unknown.refresh_from_db()
    assert read.trained_on_documents == [3, 5]
    assert unknown.trained_on_documents is None


def test_activation_keeps_one_active_model_per_kind_and_project():
    project, other = ProjectFactory.create(), ProjectFactory.create()
    v1 = model_version_create(
        kind=ModelKind.RECOGNIZER, name="ner", version="1", artefact_path="/m/1", project=project,
    )  # fmt: skip
    model_version_activate(model_version=v1, confirm=True)  # not evaluated: confirmed
    v2 = model_version_create(
        kind=ModelKind.RECOGNIZER, name="ner", version="2", artefact_path="/m/2", project=project
    )
    ModelVersionFactory.create(
        kind=ModelKind.RECOGNIZER, project=other, version="o1", is_active=True
    )
    ModelVersionFactory.create(kind=ModelKind.MASKER, project=project, version="m1", is_active=True)
    ModelVersionFactory.create(
        kind=ModelKind.RECOGNIZER, project=None, version="s1", is_active=True
    )
    assert active(project=project) == ["1"]
    assert not v2.is_active

    model_version_activate(model_version=v2, confirm=True)

    assert active(project=project) == ["2"]
    v1.refresh_from_db()
    assert not v1.is_active
    # Other projects, other kinds and shared models are untouched.
    assert active(project=other) == ["o1"]
    assert active(kind=ModelKind.MASKER, project=project) == ["m1"]
    assert active(project=None) == ["s1"]


def test_activation_of_shared_models():
    s1 = ModelVersionFactory.create(project=None, version="s1", is_active=True)
    s2 = ModelVersionFactory.create(project=None, version="s2")
    model_version_activate(model_version=s2, confirm=True)
    s1.refresh_from_db()
    assert active(project=None) == ["s2"]
    assert not s1.is_active
    model_version_activate(model_version=s2)  # already active: nothing to confirm
    assert active(project=None) == ["s2"]


def test_the_database_refuses_two_active_models_of_a_kind():
    project = ProjectFactory.create()
    ModelVersionFactory.create(project=project, version="a", is_active=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        ModelVersionFactory.create(project=project, version="b", is_active=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        ModelVersionFactory.create(project=None, version="c", is_active=True)
        ModelVersionFactory.create(project=None, version="d", is_active=True)


def test_model_version_names_are_unique():
    model_version_create(kind=ModelKind.MASKER, name="masker", version="1", artefact_path="/a")
    with pytest.raises(ValidationError, match="already exists"):
        model_version_create(kind=ModelKind.MASKER, name="masker", version="1", artefact_path="/b")
    assert ModelVersion.objects.count() == 1
