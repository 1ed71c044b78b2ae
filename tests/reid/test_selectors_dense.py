"""With an active re-identifier (an untrained bi-encoder over the bundled MiniLM), the
ensemble is BM25 + dense: both rank, the better rank counts, the version is recorded.
A request never encodes the knowledge base's profiles: until a job has stored their
embeddings, the dense model is ``pending`` and BM25 ranks alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from ml.models import ModelKind, ModelVersion
from reid.loading import read_profiles
from reid.selectors import document_rank, document_reid_info, document_suggest, reid_context
from sanitizer.reid.dense import create_untrained, precompute_embeddings
from sanitizer.reid.embedding_cache import embeddings_cached
from tests.factories import ModelVersionFactory
from tests.reid.helpers import N_PEOPLE, World, make_world

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def _active_dense(world: World, model_dir: Path) -> tuple[ModelVersion, str]:
    version = create_untrained(model_dir)
    model_version = ModelVersionFactory.create(
        kind=ModelKind.REIDENTIFIER,
        project=world.project,
        name="reid",
        version=version,
        artefact_path=str(model_dir),
        is_active=True,
    )
    return model_version, version


def test_active_dense_model_joins_the_ensemble(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    model_dir = tmp_path / "dense"
    model_version, version = _active_dense(world, model_dir)
    assert precompute_embeddings(model_dir, read_profiles(world.kb))

    info = document_reid_info(document=world.document)
    result = document_rank(document=world.document, masks=[], k=10, top=5)

    assert [m["name"] for m in info["models"]] == ["bm25", "dense"]
    assert info["models"][1]["version"] == version
    assert info["pending"] == result["pending"] == []
    assert set(result["ranks"]) == {"bm25", "dense"}
    assert 1 <= result["ranks"]["dense"] <= N_PEOPLE
    assert result["rank"] == min(result["ranks"].values()) == 1  # BM25 finds the name
    assert {c["model"] for c in result["top"]} <= {"bm25", "dense"}
    # Deactivating the model is a new key: BM25 alone again, without a stale dense.
    model_version.is_active = False
    model_version.save()
    assert set(document_rank(document=world.document, masks=[], k=10, top=5)["ranks"]) == {"bm25"}


def test_without_stored_embeddings_the_dense_model_is_pending_until_a_job_stores_them(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    model_dir = tmp_path / "dense"
    _active_dense(world, model_dir)
    profiles = read_profiles(world.kb)

    info = document_reid_info(document=world.document)
    pending = document_rank(document=world.document, masks=[], k=10, top=5)

    assert [m["name"] for m in info["models"]] == ["bm25"] and info["pending"] == ["dense"]
    assert pending["pending"] == ["dense"] and set(pending["ranks"]) == {"bm25"}
    suggestion = document_suggest(document=world.document, masks=[], k=3)
    assert suggestion["pending"] == ["dense"] and set(suggestion["ranks_after"]) == {"bm25"}
    # The requests computed and stored nothing.
    assert not embeddings_cached(model_dir, profiles)
    assert not (model_dir / "profiles").exists()

    # A job (reid_deidentify, reid_curve) encodes them, and stores them for the requests.
    job_context = reid_context(document=world.document, encode_profiles=True)
    assert [m.name for m in job_context.ensemble.models] == ["bm25", "dense"]
    assert embeddings_cached(model_dir, profiles)
    ready = document_rank(document=world.document, masks=[], k=10, top=5)
    assert ready["pending"] == [] and set(ready["ranks"]) == {"bm25", "dense"}
