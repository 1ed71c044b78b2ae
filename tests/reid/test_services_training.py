"""Training the dense re-identifier from a project (the ``train_reid`` job's service)."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.errors import DomainError
from ml.models import ModelKind, ModelVersion
from ml.services.model_versions import model_version_create
from reid.loading import ensemble_for_project, read_profiles, reid_model_version
from reid.models import ReidTarget
from reid.services.training import (
    SYNTHETIC_PREFIX,
    _activate_if_better,
    reid_train,
    synthetic_training_data,
    training_targets,
)
from sanitizer.reid.embedding_cache import embeddings_cached
from tests.factories import DocumentFactory
from tests.reid.helpers import make_kb, make_world

pytestmark = pytest.mark.django_db


def test_training_stores_an_active_reidentifier_with_its_metrics(tmp_path: Path, settings) -> None:
    settings.MODEL_DIR = tmp_path / "models"
    world = make_world(tmp_path)
    progress: list[str] = []

    model_version = reid_train(
        project=world.project,
        params={"epochs": 1, "batch_size": 8, "synthetic_docs": 2, "activate": True},
        progress=lambda done, total, message: progress.append(message),
    )

    assert model_version.kind == ModelKind.REIDENTIFIER and model_version.is_active
    assert reid_model_version(project=world.project) == model_version
    metrics = model_version.metrics
    assert {"top1_unmasked", "top10_unmasked", "top1_masked30", "top10_masked30"} <= set(metrics)
    # Every profile of the KB is a candidate, plus the generated people.
    assert metrics["n_profiles"] == 50 + 2
    assert metrics["n_train"] + metrics["n_heldout"] == len(world.documents) + 2
    summary = model_version.training_summary
    assert (summary["knowledge_base_id"], summary["project_documents"]) == (world.kb.pk, 6)
    assert summary["synthetic_documents"] == 2
    # The project's documents it was given (the generated ones are no documents).
    assert model_version.trained_on_documents == sorted(d.pk for d in world.documents)
    artefact = Path(model_version.artefact_path)
    assert artefact.is_relative_to(settings.MODEL_DIR) and (artefact / "reid.json").is_file()
    # The knowledge base's profile embeddings are stored with the model: the first rank
    # request finds them (the generated training people are not candidates there).
    assert summary["embedded_profiles"] == 50
    assert embeddings_cached(artefact, read_profiles(world.kb))
    assert ensemble_for_project(project=world.project, knowledge_base=world.kb).pending == ()
    assert any("synthetic" in line for line in progress)


def test_training_targets_follow_the_editor_choice_and_skip_test_documents(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    chosen, elsewhere, test_doc = world.documents[:3]
    ReidTarget.objects.create(document=chosen, knowledge_base=world.kb, profile_id="SP00000001")
    other_kb = make_kb(world.project, world.kb_path, name="other")
    ReidTarget.objects.create(document=elsewhere, knowledge_base=other_kb, profile_id="SP00000002")
    test_doc.split = "test"
    test_doc.save()
    DocumentFactory.create(project=world.project, text="No one.", position=99, meta={})

    targets = {
        d.doc_id: d.target for d in training_targets(project=world.project, knowledge_base=world.kb)
    }

    assert targets[str(chosen.pk)] == "SP00000001"
    # Chosen in another knowledge base, in the test split, or without a target: left out.
    assert str(elsewhere.pk) not in targets and str(test_doc.pk) not in targets
    assert len(targets) == len(world.documents) - 2


def test_training_without_documents_is_refused(tmp_path: Path, settings) -> None:
    settings.MODEL_DIR = tmp_path / "models"
    world = make_world(tmp_path, with_target=False)
    with pytest.raises(DomainError, match="no training documents"):
        reid_train(project=world.project, params={"epochs": 1})
    assert not ModelVersion.objects.exists()


def test_synthetic_people_get_ids_of_their_own(tmp_path: Path) -> None:
    profiles, documents = synthetic_training_data(n_docs=5, seed=1)
    assert len(profiles) == len(documents) == 5
    ids = {p.id for p in profiles}
    assert len(ids) == 5 and all(p.startswith(SYNTHETIC_PREFIX) for p in ids)
    assert {d.target for d in documents} == ids
    # Three long biographies and two short ones.
    lengths = sorted(len(d.text.split()) for d in documents)
    assert lengths[1] < 60 < lengths[2]


def test_a_better_active_model_stays_active(tmp_path: Path) -> None:
    world = make_world(tmp_path)

    def version(name: str, top1: float) -> ModelVersion:
        return model_version_create(
            kind=ModelKind.REIDENTIFIER,
            name=name,
            version="1",
            artefact_path=str(tmp_path / name),
            metrics={"top1_masked30": top1},
            project=world.project,
        )

    best = _activate_if_better(version("best", 0.8))
    worse = _activate_if_better(version("worse", 0.5))
    assert best.is_active and not worse.is_active
    assert "not activated: top1_masked30 0.5 < 0.8" in worse.training_summary["activation"]
    better = _activate_if_better(version("better", 0.9))
    assert better.is_active and reid_model_version(project=world.project) == better
