"""``dense``: the trained bi-encoder of :mod:`sanitizer.reid.dense` (needs ``model_dir``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sanitizer.kanon.kb import Person
from sanitizer.reid.base import reid_models
from sanitizer.reid.dense import DenseModel


@reid_models.register("dense")
def dense_model(
    profiles: Sequence[Person],
    *,
    model_dir: str | None = None,
    device: str | None = None,
    fingerprint: str | None = None,
    **options: Any,
) -> DenseModel:
    """Load the dense model in ``model_dir`` against ``profiles`` (embeddings cached per KB).

    ``fingerprint``: ``kb_fingerprint(profiles)`` if the caller has it (else computed)."""
    if not model_dir:
        raise ValueError("the dense re-identification model needs model_dir (a trained model)")
    model = DenseModel.load(model_dir, profiles, device=device, fingerprint=fingerprint)
    if "exact_top" in options:
        model.exact_top = int(options["exact_top"])
    return model
