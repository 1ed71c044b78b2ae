"""Loading a knowledge base's profiles and the re-identification ensemble, once per process.

The live rank answers in milliseconds only because the profiles, BM25's index and the
dense model's profile embeddings stay in memory between requests. The cache is keyed by
everything that changes what a model would answer: the knowledge base (its id, when it
was built, the source file's size and modification time) and the active re-identifier
(its id and files). A rebuilt knowledge base or a newly activated model is therefore a
new key, and the least recently used entry is dropped when the cache is full.

A web request never encodes profiles: when the active dense model has no stored
embeddings for the knowledge base (the ``train_reid`` job stores them for the knowledge
base it trained against; any other one needs a job that loads the model against it), the
ensemble is BM25 alone and names "dense" in ``pending``. Such an entry is checked again on
every request and replaced as soon as the embeddings are there.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from django.conf import settings

from common.errors import DomainError
from knowledge.models import KbFormat, KnowledgeBase
from ml.models import ModelKind, ModelVersion
from ml.selectors import active_model_version
from sanitizer.kanon.kb import Person, read_kb
from sanitizer.reid.base import ReidModel, build_model
from sanitizer.reid.embedding_cache import embeddings_cached
from sanitizer.reid.profiles import kb_fingerprint

# BM25 is always in the ensemble; the dense model joins when the project has one active.
SPARSE_MODEL = "bm25"
DENSE_MODEL = "dense"

# Every profile is held in memory (and embedded by the dense model): a whole Wikidata dump
# is no candidate set for the live rank.
MAX_PROFILES = 200_000
DEFAULT_CACHE_SIZE = 2

CacheKey = tuple[Any, ...]
T = TypeVar("T")


@dataclass(frozen=True)
class LoadedEnsemble:
    """A knowledge base's profiles and the models that rank them."""

    key: CacheKey
    knowledge_base_id: int
    profiles: list[Person]
    index: dict[str, int]  # profile id -> column of every model's scores
    models: list[ReidModel]
    model_version_id: int | None = None
    model_version_label: str = ""
    names: list[str] = field(default_factory=list)  # profile names, column order
    # Models left out until their per-knowledge-base data is computed (never in a request).
    pending: tuple[str, ...] = ()
    # kb_fingerprint(profiles), hashed once per load: the per-request check of a pending
    # model and every model built by the load reuse it instead of rehashing every profile.
    fingerprint: str | None = None

    def describe(self) -> list[dict[str, str]]:
        return [{"name": m.name, "version": m.version} for m in self.models]


class LruCache(Generic[T]):
    """A bounded, thread-safe LRU cache of loaded things.

    One lock guards the table; each key has its own loading lock, so two requests for the
    same knowledge base load it once while requests for another one are not held up.
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = max(1, maxsize)
        self._entries: OrderedDict[CacheKey, T] = OrderedDict()
        self._loading: dict[CacheKey, threading.Lock] = {}
        self._lock = threading.Lock()
        self.loads = 0  # how many times a loader ran (tests check the cache hits)

    def get(self, key: CacheKey, loader: Callable[[], T]) -> T:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return entry
            key_lock = self._loading.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None:
                    self._entries.move_to_end(key)
                    return entry
            try:
                entry = loader()
                with self._lock:
                    self.loads += 1
                    self._entries[key] = entry
                    self._entries.move_to_end(key)
                    while len(self._entries) > self.maxsize:
                        self._entries.popitem(last=False)
            finally:
                # Only once the entry is in the table: a request arriving in between
                # would otherwise take a fresh loading lock and load the key a second time.
                with self._lock:
                    self._loading.pop(key, None)
            return entry

    def discard(self, key: CacheKey, entry: T) -> None:
        """Drop ``key`` if it still holds ``entry`` (not a newer one another request loaded)."""
        with self._lock:
            if self._entries.get(key) is entry:
                del self._entries[key]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


_cache: LruCache[LoadedEnsemble] = LruCache(
    getattr(settings, "REID_CACHE_SIZE", DEFAULT_CACHE_SIZE)
)
# Which profile ids a knowledge base holds: what resolving an imported target needs,
# without loading models for every knowledge base of the project.
_ids_cache: LruCache[frozenset[str]] = LruCache(16)


def ensemble_cache() -> LruCache[LoadedEnsemble]:
    return _cache


def _file_stamp(path: str) -> tuple[int, int]:
    try:
        stat = os.stat(path)
    except OSError:
        return (-1, -1)
    return (stat.st_size, stat.st_mtime_ns)


def _kb_key(knowledge_base: KnowledgeBase) -> CacheKey:
    return (
        knowledge_base.pk,
        knowledge_base.built_at.isoformat() if knowledge_base.built_at else "",
        knowledge_base.source_path,
        _file_stamp(knowledge_base.source_path),
    )


def ensemble_key(knowledge_base: KnowledgeBase, model_version: ModelVersion | None) -> CacheKey:
    """What identifies a loaded ensemble: changes when the KB is rebuilt or the model changes."""
    kb_part = _kb_key(knowledge_base)
    model_part = (
        (model_version.pk, model_version.artefact_path, model_version.version)
        if model_version is not None
        else None
    )
    return (kb_part, model_part)


def read_profiles(knowledge_base: KnowledgeBase) -> list[Person]:
    """Every profile of the knowledge base, read from its source file as the index was."""
    if knowledge_base.n_persons > MAX_PROFILES:
        raise DomainError(
            f"knowledge base {knowledge_base.name!r} has {knowledge_base.n_persons} people; "
            f"the re-identification rank works on at most {MAX_PROFILES}"
        )
    options: dict[str, Any] = {}
    if knowledge_base.source_format == KbFormat.WIKIDATA and knowledge_base.params.get("language"):
        options["language"] = knowledge_base.params["language"]
    profiles = list(read_kb(knowledge_base.source_path, knowledge_base.source_format, **options))
    if len(profiles) > MAX_PROFILES:
        raise DomainError(f"knowledge base {knowledge_base.name!r} has over {MAX_PROFILES} people")
    return profiles


def _load(
    knowledge_base: KnowledgeBase, model_version: ModelVersion | None, *, encode_profiles: bool
) -> LoadedEnsemble:
    profiles = read_profiles(knowledge_base)
    index: dict[str, int] = {}
    for i, person in enumerate(profiles):
        # A repeated id keeps its first profile, as the inverted index does.
        index.setdefault(person.id, i)
    fingerprint = kb_fingerprint(profiles)
    models: list[ReidModel] = [build_model(SPARSE_MODEL, profiles, fingerprint=fingerprint)]
    pending: tuple[str, ...] = ()
    if model_version is not None:
        path = model_version.artefact_path
        if encode_profiles or embeddings_cached(path, profiles, fingerprint=fingerprint):
            models.append(
                build_model(DENSE_MODEL, profiles, model_dir=path, fingerprint=fingerprint)
            )
        else:
            # Encoding every profile takes minutes on a CPU: not in a web request.
            pending = (DENSE_MODEL,)
    return LoadedEnsemble(
        key=ensemble_key(knowledge_base, model_version),
        knowledge_base_id=knowledge_base.pk,
        profiles=profiles,
        index=index,
        models=models,
        model_version_id=model_version.pk if model_version is not None else None,
        model_version_label=model_version.label if model_version is not None else "",
        names=[p.name for p in profiles],
        pending=pending,
        fingerprint=fingerprint,
    )


def profile_ids(*, knowledge_base: KnowledgeBase) -> frozenset[str]:
    """The ids of the knowledge base's profiles."""

    def load() -> frozenset[str]:
        return frozenset(p.id for p in read_profiles(knowledge_base))

    return _ids_cache.get(_kb_key(knowledge_base), load)


def reid_model_version(*, project: Any) -> ModelVersion | None:
    """The dense re-identifier in use for ``project``: its own active one, else a shared one."""
    return active_model_version(project=project, kind=ModelKind.REIDENTIFIER)


def ensemble_load(
    *,
    knowledge_base: KnowledgeBase,
    model_version: ModelVersion | None,
    encode_profiles: bool = False,
) -> LoadedEnsemble:
    """The loaded ensemble for the knowledge base: BM25, plus the dense ``model_version``.

    Without ``encode_profiles`` (web requests) a dense model whose profile embeddings are
    not stored is left ``pending``; jobs pass True and encode (and store) them."""
    key = ensemble_key(knowledge_base, model_version)

    def load() -> LoadedEnsemble:
        return _load(knowledge_base, model_version, encode_profiles=encode_profiles)

    entry = _cache.get(key, load)
    if (
        DENSE_MODEL in entry.pending
        and model_version is not None
        and (
            encode_profiles
            or embeddings_cached(
                model_version.artefact_path, entry.profiles, fingerprint=entry.fingerprint
            )
        )
    ):
        # Asked to encode, or the embeddings have been stored since: load the dense model.
        _cache.discard(key, entry)
        entry = _cache.get(key, load)
    return entry


def ensemble_for_project(
    *, project: Any, knowledge_base: KnowledgeBase, encode_profiles: bool = False
) -> LoadedEnsemble:
    """The ensemble a project's documents are ranked with against ``knowledge_base``."""
    return ensemble_load(
        knowledge_base=knowledge_base,
        model_version=reid_model_version(project=project),
        encode_profiles=encode_profiles,
    )


def reid_caches_clear() -> None:
    """Drop every loaded ensemble and profile-id set (tests; a worker after a rebuild)."""
    _cache.clear()
    _ids_cache.clear()
