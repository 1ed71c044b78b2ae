"""Loading the ensemble of re-identification models for a knowledge base, cached per process.

Building BM25 over thousands of profiles, or loading a dense model and its profile
embeddings, takes seconds; callers that mask or rank one document at a time (the strategy,
the live rank) reuse the ensemble as long as the knowledge-base file is unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache

from sanitizer.kanon.kb import Person
from sanitizer.reid.base import ReidModel, build_model
from sanitizer.reid.profiles import load_profiles


def model_names(models: str | Sequence[str] | None, model_dir: str | None) -> tuple[str, ...]:
    """The models to use: ``models`` (comma list or sequence) else bm25, plus dense with a model."""
    if models:
        names = models.split(",") if isinstance(models, str) else list(models)
        out = tuple(n.strip() for n in names if n.strip())
        if out:
            return out
    return ("bm25", "dense") if model_dir else ("bm25",)


def build_ensemble(
    profiles: Sequence[Person], names: Sequence[str], model_dir: str | None = None
) -> list[ReidModel]:
    """One model per name over ``profiles``; ``dense`` without ``model_dir`` is an error."""
    if "dense" in names and not model_dir:
        raise ValueError("the dense re-identification model needs a model directory (--model)")
    return [build_model(n, profiles, model_dir=model_dir) for n in names]


def _file_key(path: str) -> tuple[str, int, int]:
    st = os.stat(path)
    return os.path.realpath(path), st.st_mtime_ns, st.st_size


def _model_key(model_dir: str | None) -> tuple[int, int] | None:
    # A model retrained into the same directory rewrites reid.json (a new version): a new key.
    if model_dir is None:
        return None
    try:
        st = os.stat(os.path.join(model_dir, "reid.json"))
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


@lru_cache(maxsize=4)
def _cached(
    kb_key: tuple[str, int, int],
    names: tuple[str, ...],
    model_dir: str | None,
    model_key: tuple[int, int] | None,
) -> tuple[list[Person], list[ReidModel]]:
    profiles = load_profiles(kb_key[0])
    return profiles, build_ensemble(profiles, names, model_dir)


def load_ensemble(
    kb_path: str | os.PathLike[str],
    names: Sequence[str],
    model_dir: str | os.PathLike[str] | None = None,
) -> tuple[list[Person], list[ReidModel]]:
    """``(profiles, models)`` for a knowledge-base file, cached while the file (and the
    model directory's ``reid.json``) is unchanged."""
    directory = str(model_dir) if model_dir is not None else None
    return _cached(_file_key(str(kb_path)), tuple(names), directory, _model_key(directory))
