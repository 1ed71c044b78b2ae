"""The process cache of loaded ensembles: loaded once, reloaded when the knowledge base is
rebuilt or the active model changes, bounded, and safe under concurrent requests."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest

import reid.loading
import sanitizer.reid.embedding_cache
import sanitizer.reid.models.bm25
from ml.models import ModelKind
from reid.loading import (
    LruCache,
    ensemble_cache,
    ensemble_for_project,
    ensemble_key,
    profile_ids,
    reid_model_version,
)
from sanitizer.kanon.kb import Person
from sanitizer.reid.profiles import kb_fingerprint
from tests.factories import ModelVersionFactory
from tests.reid.helpers import N_PEOPLE, make_world

pytestmark = pytest.mark.django_db


def test_ensemble_is_loaded_once_and_holds_bm25_and_every_profile(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    loads = ensemble_cache().loads

    first = ensemble_for_project(project=world.project, knowledge_base=world.kb)
    again = ensemble_for_project(project=world.project, knowledge_base=world.kb)

    assert again is first
    assert ensemble_cache().loads == loads + 1
    assert [m.name for m in first.models] == ["bm25"]
    assert len(first.profiles) == len(first.index) == N_PEOPLE
    assert first.profiles[first.index["SP00000007"]].id == "SP00000007"
    assert first.describe()[0]["name"] == "bm25"
    assert "SP00000007" in profile_ids(knowledge_base=world.kb)


def test_key_changes_when_the_knowledge_base_is_rebuilt_or_a_model_is_activated(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    before = ensemble_key(world.kb, None)
    assert ensemble_key(world.kb, None) == before

    assert world.kb.built_at is not None
    world.kb.built_at += timedelta(seconds=1)
    rebuilt = ensemble_key(world.kb, None)
    assert rebuilt != before

    assert reid_model_version(project=world.project) is None
    version = ModelVersionFactory.create(
        kind=ModelKind.REIDENTIFIER, project=world.project, is_active=True, artefact_path="/m"
    )
    assert reid_model_version(project=world.project) == version
    assert ensemble_key(world.kb, version) != rebuilt


def test_cache_is_bounded_least_recently_used_first() -> None:
    cache: LruCache[str] = LruCache(2)
    cache.get(("a",), lambda: "A")
    cache.get(("b",), lambda: "B")
    cache.get(("a",), lambda: "A2")  # a is now the most recent
    cache.get(("c",), lambda: "C")  # evicts b
    assert len(cache) == 2
    assert cache.get(("a",), lambda: "A3") == "A"
    assert cache.get(("b",), lambda: "B2") == "B2"
    assert cache.loads == 4


def test_concurrent_requests_load_a_key_once() -> None:
    cache: LruCache[int] = LruCache(2)
    started = threading.Event()
    release = threading.Event()
    calls: list[int] = []

    def slow() -> int:
        calls.append(1)
        started.set()
        release.wait(timeout=10)
        return 42

    results: list[int] = []
    threads = [
        threading.Thread(target=lambda: results.append(cache.get(("k",), slow))) for _ in range(4)
    ]
    threads[0].start()
    assert started.wait(timeout=10)
    for t in threads[1:]:
        t.start()
    release.set()
    for t in threads:
        t.join(timeout=10)
    assert results == [42, 42, 42, 42]
    assert calls == [1]


def test_the_kb_is_hashed_once_per_load_not_per_request_while_the_dense_model_is_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = make_world(tmp_path)
    model_dir = tmp_path / "dense"
    model_dir.mkdir()
    # Weights whose profile embeddings were never stored: the dense model stays pending.
    (model_dir / "reid.json").write_text('{"version": "dense-test"}', encoding="utf-8")
    ModelVersionFactory.create(
        kind=ModelKind.REIDENTIFIER,
        project=world.project,
        is_active=True,
        artefact_path=str(model_dir),
    )
    hashed: list[int] = []

    def counting(persons: Sequence[Person]) -> str:
        hashed.append(1)
        return kb_fingerprint(persons)

    for module in (reid.loading, sanitizer.reid.embedding_cache, sanitizer.reid.models.bm25):
        monkeypatch.setattr(module, "kb_fingerprint", counting)

    first = ensemble_for_project(project=world.project, knowledge_base=world.kb)
    assert first.pending == ("dense",) and [m.name for m in first.models] == ["bm25"]
    assert len(hashed) == 1
    assert first.fingerprint == kb_fingerprint(first.profiles)
    assert first.fingerprint in first.models[0].version
    # Every later request checks whether the embeddings have arrived, without rehashing.
    for _ in range(3):
        assert ensemble_for_project(project=world.project, knowledge_base=world.kb) is first
    assert len(hashed) == 1
