"""The dense model's stored profile embeddings, one file pair per knowledge base.

Encoding 5,000 profiles takes minutes on a CPU, so the embeddings of a knowledge base are
written next to the weights (``<model_dir>/profiles/<fingerprint>.npy`` and ``.json``
holding the weights' version and the profile ids) and reused by every later load. This
module only reads and writes those files: whether they are there is a question a web
request can ask without loading any weights.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sanitizer.kanon.kb import Person
from sanitizer.reid.profiles import kb_fingerprint


def _cache_valid(model_dir: Path, fp: str, version: str, ids: list[str]) -> bool:
    """Whether the stored embeddings of the knowledge base ``fp`` belong to these weights
    (``version``) and these profile ids in this order."""
    ids_path = model_dir / "profiles" / f"{fp}.json"
    if not (ids_path.is_file() and ids_path.with_suffix(".npy").is_file()):
        return False
    try:
        meta = json.loads(ids_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(meta.get("version") == version and meta.get("ids") == ids)


def cached_embeddings(model_dir: Path, fp: str, version: str, ids: list[str]) -> np.ndarray | None:
    """The stored embeddings of knowledge base ``fp`` for these weights, else None."""
    if not _cache_valid(model_dir, fp, version, ids):
        return None
    return np.asarray(np.load(model_dir / "profiles" / f"{fp}.npy"))


def store_embeddings(
    model_dir: Path, fp: str, embeddings: np.ndarray, version: str, ids: list[str]
) -> None:
    """Write the embeddings of knowledge base ``fp``; a read-only directory is left alone
    (they are then recomputed on the next load)."""
    cache = model_dir / "profiles"
    try:
        cache.mkdir(parents=True, exist_ok=True)
        # Written under temporary names, then renamed: a concurrent reader never sees half.
        # The ids file goes last, so a valid ids file always has its matrix beside it.
        tmp = cache / f".{fp}.{os.getpid()}"
        np.save(f"{tmp}.npy", embeddings.astype(np.float32))
        Path(f"{tmp}.json").write_text(
            json.dumps({"version": version, "ids": ids}), encoding="utf-8"
        )
        os.replace(f"{tmp}.npy", cache / f"{fp}.npy")
        os.replace(f"{tmp}.json", cache / f"{fp}.json")
    except OSError:
        pass


def embeddings_cached(
    model_dir: str | os.PathLike[str],
    profiles: Sequence[Person],
    *,
    fingerprint: str | None = None,
) -> bool:
    """Whether ``model_dir`` already holds the embeddings of ``profiles`` for its current
    weights, so that loading the dense model against them would encode no profile.

    ``fingerprint`` is ``kb_fingerprint(profiles)`` when the caller already has it (hashing
    every profile's text is the costly part of the question); computed when omitted."""
    d = Path(model_dir)
    try:
        version = json.loads((d / "reid.json").read_text(encoding="utf-8")).get("version", "")
    except (OSError, ValueError):
        return False
    fp = kb_fingerprint(profiles) if fingerprint is None else fingerprint
    return _cache_valid(d, fp, str(version), [p.id for p in profiles])
