"""Ranks with ties, the robust log-probability and the model registry."""

from __future__ import annotations

import numpy as np
import pytest

from sanitizer.reid.base import rank_of, reid_models, target_log_prob


def test_rank_of_counts_ties_against_the_target() -> None:
    assert rank_of(np.array([3.0, 1.0, 2.0]), 0) == 1
    assert rank_of(np.array([3.0, 1.0, 2.0]), 1) == 3
    # A tie is not a re-identification: every tied profile ranks ahead of the target.
    assert rank_of(np.array([2.0, 2.0, 1.0]), 0) == 2
    assert rank_of(np.array([2.0, 2.0, 1.0]), 1) == 2
    assert rank_of(np.zeros(5, dtype=np.float32), 3) == 5


def test_target_log_prob_matches_log_softmax_and_keeps_tiny_differences() -> None:
    rows = np.array([[1.0, 2.0, 0.5], [0.0, 0.0, 0.0]])
    expected = rows - np.log(np.exp(rows).sum(axis=1, keepdims=True))
    assert target_log_prob(rows, 1) == pytest.approx(expected[:, 1])
    far = target_log_prob(np.array([[100.0, 0.0], [100.0, 10.0]]), 0)
    assert far[0] < 0 and far[1] < 0  # log_softmax would round both to exactly 0
    assert far[0] > far[1]  # the wider margin is the surer identification


def test_registry_knows_the_lexical_models() -> None:
    assert {"bm25", "tfidf-char"} <= set(reid_models.names())
    with pytest.raises(KeyError, match="known"):
        reid_models.get("no-such-model")
