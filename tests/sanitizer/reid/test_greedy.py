"""Greedy de-identification (seed 004, Algorithm 1) over an ensemble."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from sanitizer.reid.base import ReidModel, Span, build_model
from sanitizer.reid.greedy import candidates, deidentify, ranks
from sanitizer.reid.models.bm25 import BM25Model
from sanitizer.reid.words import is_stopword, masked_words, word_spans
from tests.sanitizer.reid.helpers import DOCS, profiles

TEXT = str(DOCS[0]["text"])


class ScoresOnly:
    """A second BM25 (other parameters) without ``candidate_drops``: the batched fallback."""

    name = "bm25-plain"

    def __init__(self) -> None:
        self.inner = BM25Model(profiles(), k1=0.9, b=0.4)
        self.version = "test"
        self.profile_ids = self.inner.profile_ids

    def scores(self, texts: Sequence[str], masks: Sequence[Sequence[Span]]) -> np.ndarray:
        return self.inner.scores(texts, masks)

    def links(self, text: str, masks: Sequence[Span], index: int, limit: int = 5) -> list[str]:
        return []


@pytest.fixture(scope="module")
def models() -> list[ReidModel]:
    return [build_model("bm25", profiles()), ScoresOnly()]


@pytest.mark.parametrize("k", [1, 3])
def test_stops_exactly_when_every_model_ranks_the_target_below_k(
    models: list[ReidModel], k: int
) -> None:
    result = deidentify(TEXT, "p0", models, k=k)
    assert result.ranks_before == {"bm25": 1, "bm25-plain": 1}
    assert result.reached
    assert all(r > k for r in result.ranks_after.values())
    assert result.steps and result.steps[-1].ranks == result.ranks_after
    # Every earlier step still left some model with the target in its top k.
    assert all(min(step.ranks.values()) <= k for step in result.steps[:-1])
    assert result.ranks_after == ranks(models, TEXT, result.masks, "p0")


def test_masks_all_occurrences_and_never_a_stopword(models: list[ReidModel]) -> None:
    result = deidentify(TEXT, "p0", models, k=3)
    spans = word_spans(TEXT)
    flags = masked_words(TEXT, result.masks)
    masked = {TEXT[s:e].lower() for (s, e), f in zip(spans, flags, strict=True) if f}
    assert not any(is_stopword(w) for w in masked)
    for (s, e), f in zip(spans, flags, strict=True):
        if TEXT[s:e].lower() in masked:
            assert f, f"{TEXT[s:e]!r} masked somewhere but not at {s}"


def test_entity_candidates_cover_every_occurrence_of_the_surface() -> None:
    braga = TEXT.index("Braga")
    pool = candidates(TEXT, [(braga, braga + 5)])
    entity = pool[0]
    assert entity.kind == "entity" and len(entity.spans) == 2
    # The word candidate "braga" masks the same words: it is not offered twice.
    assert [c.text.lower() for c in pool].count("braga") == 1
    assert not any(is_stopword(c.text) for c in pool if c.kind == "word")


def test_initial_masks_are_kept_and_only_what_is_needed_is_added(models: list[ReidModel]) -> None:
    name = (0, len("Ana Ribeiro Silva"))
    result = deidentify(TEXT, "p0", models, k=2, initial_masks=[name])
    assert any(s <= name[0] and name[1] <= e for s, e in result.masks)
    assert all(not (s < name[1] and name[0] < e) for s, e in result.added)
    assert "ana" not in {step.text.lower() for step in result.steps}
    assert result.reached


def test_max_steps_and_a_document_without_words(models: list[ReidModel]) -> None:
    result = deidentify(TEXT, "p0", models, k=3, max_steps=1)
    assert len(result.steps) == 1 and not result.reached
    empty = deidentify("...", "p0", models, k=1)
    assert empty.reached and empty.steps == []  # nothing to match: everyone ties
    with pytest.raises(ValueError, match="not a profile"):
        deidentify(TEXT, "nobody", models)


class Scripted:
    """Ranks the target first while the number of masked words is in ``first``."""

    version = "test"

    def __init__(self, name: str, first: set[int]) -> None:
        self.name = name
        self.first = first
        self.profile_ids = ["p0", "p1", "p2"]

    def scores(self, texts: Sequence[str], masks: Sequence[Sequence[Span]]) -> np.ndarray:
        out = np.zeros((len(texts), 3), dtype=np.float32)
        for i, (text, m) in enumerate(zip(texts, masks, strict=True)):
            out[i, 0] = 1.0 if sum(masked_words(text, m)) in self.first else -1.0
        return out

    def links(self, text: str, masks: Sequence[Span], index: int, limit: int = 5) -> list[str]:
        return []


def test_a_model_back_in_the_top_k_rejoins_before_the_search_stops() -> None:
    a, b = Scripted("a", {0, 1}), Scripted("b", {0, 2})
    result = deidentify("alpha bravo charlie delta echo", "p0", [a, b], k=1)
    # Step 1: b leaves the top 1 and is not re-ranked; step 2: a leaves too, so b is checked
    # again, is back at rank 1 and the search goes on; step 3 fools both.
    assert [step.ranks for step in result.steps] == [
        {"a": 1, "b": 3},
        {"a": 3, "b": 1},
        {"b": 3, "a": 3},
    ]
    assert result.reached and result.ranks_after == {"a": 3, "b": 3}


def test_pruning_drops_only_steps_the_result_does_not_need(models: list[ReidModel]) -> None:
    doc = DOCS[0]
    plain = deidentify(doc["text"], doc["target"], models, k=2)
    pruned = deidentify(doc["text"], doc["target"], models, k=2, prune=True)
    assert plain.reached and pruned.reached
    # Never more masked than without pruning, and the guarantee still holds, re-checked here.
    assert set(pruned.added) <= set(plain.added)
    assert len(pruned.steps) <= len(plain.steps)
    again = ranks(models, doc["text"], pruned.masks, doc["target"])
    assert again == pruned.ranks_after
    assert all(r > 2 for r in again.values())


@pytest.mark.parametrize("prune", [False, True])
def test_added_is_the_sorted_spans_of_the_steps_taken(models: list[ReidModel], prune: bool) -> None:
    doc = DOCS[0]
    result = deidentify(doc["text"], doc["target"], models, k=2, prune=prune)
    assert result.steps
    spans = sorted(sp for step in result.steps for sp in step.spans)
    assert result.added == spans
    assert result.to_json()["added"] == [list(sp) for sp in spans]
    assert list(result.to_json()) == [
        "masks",
        "added",
        "steps",
        "ranks_before",
        "ranks_after",
        "share_masked",
        "reached",
    ]
