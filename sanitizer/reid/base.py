"""Re-identification models: the shared vocabulary (seed 004 §4–5).

A re-identification model scores every candidate profile for a (partly masked) document;
``softmax`` of a row is the model's ``p(person | text, masks)``. Models are plugins of the
``reid_models`` registry (one module each under :mod:`sanitizer.reid.models`), built by
``factory(profiles, *, model_dir=None, **options)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from scipy.special import logsumexp

from sanitizer.kanon.kb import Person
from sanitizer.registry import Registry

Span = tuple[int, int]
"""Character offsets ``[start, end)`` of a mask."""


@dataclass(frozen=True)
class ReidDocument:
    """A document and the knowledge-base id of the person it is about."""

    doc_id: str
    text: str
    target: str


@runtime_checkable
class ReidModel(Protocol):
    """Scores every profile of its knowledge base for masked documents."""

    name: str
    version: str
    profile_ids: list[str]

    def scores(self, texts: Sequence[str], masks: Sequence[Sequence[Span]]) -> np.ndarray:
        """``float32 [n_docs, n_profiles]``, higher = more likely; softmax gives p(y|x,z)."""
        ...

    def links(self, text: str, masks: Sequence[Span], index: int, limit: int = 5) -> list[str]:
        """Human-readable reasons why profile ``index`` matches the unmasked text."""
        ...


@runtime_checkable
class SupportsCandidateDrops(Protocol):
    """Optional fast path of the greedy search."""

    def candidate_drops(
        self,
        text: str,
        masks: Sequence[Span],
        target_index: int,
        candidates: Sequence[Sequence[Span]],
    ) -> np.ndarray:
        """Decrease of log p(target) if each candidate's spans were also masked."""
        ...


ReidModelFactory = Callable[..., ReidModel]

reid_models: Registry[ReidModelFactory] = Registry(
    "re-identification model", plugins="sanitizer.reid.models"
)


def build_model(
    name: str, profiles: Sequence[Person], *, model_dir: str | None = None, **options: Any
) -> ReidModel:
    """The registered model ``name`` over ``profiles`` (``KeyError`` if unknown)."""
    return reid_models.get(name)(profiles, model_dir=model_dir, **options)


def rank_of(row: np.ndarray, index: int) -> int:
    """1-based rank of column ``index`` in ``row``: ``1 + #{j != index : row[j] >= row[index]}``.

    A tie counts against the target (ranked below every profile it ties with), so a
    document whose scores are all equal is not re-identified, however few profiles there are.
    """
    values = np.asarray(row)
    return int(np.count_nonzero(values >= values[index]))  # includes index itself exactly once


def target_log_prob(scores: np.ndarray, index: int) -> np.ndarray:
    """``log softmax(row)[index]`` of each row of ``scores`` (a row or a matrix), in float64.

    Computed as ``-log1p(sum_{j != index} exp(s_j - s_index))`` so that a target far ahead
    keeps distinct, tiny values (``log_softmax`` would round them all to exactly 0 and the
    greedy search would lose its signal).
    """
    x = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    others = x - x[:, index : index + 1]
    others[:, index] = -np.inf
    out: np.ndarray = -np.logaddexp(0.0, logsumexp(others, axis=1))
    return out
