"""The lexical models: BM25 (with its exact candidate drops) and the char n-gram attacker."""

from __future__ import annotations

import numpy as np
import pytest

from sanitizer.reid.base import build_model, rank_of, target_log_prob
from sanitizer.reid.models.bm25 import BM25Model
from sanitizer.reid.words import word_spans
from tests.sanitizer.reid.helpers import DOCS, profiles

TEXT = str(DOCS[0]["text"])


@pytest.fixture(scope="module")
def bm25() -> BM25Model:
    model = build_model("bm25", profiles())
    assert isinstance(model, BM25Model)
    return model


def test_bm25_ranks_the_person_first_and_masks_remove_words(bm25: BM25Model) -> None:
    scores = bm25.scores([TEXT], [[]])
    assert scores.shape == (1, 8) and scores.dtype == np.float32
    assert rank_of(scores[0], 0) == 1
    # Masking everything leaves an empty query: all profiles tie, nobody is re-identified.
    empty = bm25.scores([TEXT], [[(0, len(TEXT))]])[0]
    assert not empty.any() and rank_of(empty, 0) == 8
    # Masking "Braga" (both occurrences) lowers Ana's score.
    braga = [(m, m + 5) for m in range(len(TEXT)) if TEXT.startswith("Braga", m)]
    assert bm25.scores([TEXT], [braga])[0][0] < scores[0][0]


def test_bm25_candidate_drops_equal_exact_rescoring(bm25: BM25Model) -> None:
    words = word_spans(TEXT)
    current = [words[0], (words[5][0] + 1, words[5][1])]  # "Ana" and part of a word
    candidates = [[w] for w in words]
    candidates += [
        [words[1], words[2]],
        [(0, len(TEXT))],
        [],
        [words[0]],
    ]  # multi, all, none, masked
    drops = bm25.candidate_drops(TEXT, current, 0, candidates)
    now = target_log_prob(bm25.scores([TEXT], [current]), 0)[0]
    rows = bm25.scores([TEXT] * len(candidates), [current + c for c in candidates])
    exact = now - target_log_prob(rows, 0)
    assert drops == pytest.approx(exact, rel=1e-4, abs=1e-9)
    assert drops[-1] == 0.0 and drops[-2] == 0.0  # already masked / nothing
    assert drops.max() > 0


def test_bm25_links_name_the_shared_rows(bm25: BM25Model) -> None:
    links = bm25.links(TEXT, [], 0)
    assert "place of birth || Braga" in links
    assert "name || Ana Ribeiro Silva" in links
    name = [(0, 17)]
    assert "name || Ana Ribeiro Silva" in bm25.links(TEXT, name, 0)  # "Silva" later in the text
    everything = [(0, len(TEXT))]
    assert bm25.links(TEXT, everything, 0) == []


def test_tfidf_char_is_an_independent_attacker() -> None:
    model = build_model("tfidf-char", profiles())
    assert not hasattr(model, "candidate_drops")
    scores = model.scores([str(d["text"]) for d in DOCS], [[], [], []])
    assert scores.shape == (3, 8)
    assert [rank_of(scores[i], j) for i, j in ((0, 0), (1, 3), (2, 4))] == [1, 1, 1]
    assert "place of birth || Prague" in model.links(str(DOCS[2]["text"]), [], 4)
