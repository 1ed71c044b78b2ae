"""The small shared modules: P/R/F1 (sanitizer.metrics), intervals, the phrase matcher."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sanitizer.intervals import coverage_mask, mask_runs, merge_intervals, overlaps
from sanitizer.metrics import Prf, defined_ratio, harmonic_mean, ratio
from sanitizer.textmatch import (
    PhraseMatcher,
    leftmost_longest,
    longest_first,
    lower_same_length,
)

# --- metrics ---------------------------------------------------------------------------


def test_prf_from_counts_and_zero_division() -> None:
    scores = Prf.from_counts(3, 4, 5)
    assert (scores.precision, scores.recall) == (0.75, 0.6)
    assert scores.f1 == pytest.approx(2 / 3)
    assert Prf.from_counts(0, 0, 5) == Prf(0.0, 0.0, 0.0)
    assert Prf.from_counts(0, 0, 0) == Prf(0.0, 0.0, 0.0)
    assert ratio(1, 0) == 0.0 and defined_ratio(1, 0) is None and defined_ratio(1, 2) == 0.5
    assert harmonic_mean(0.0, 0.0) == 0.0 and harmonic_mean(1.0, 0.5) == pytest.approx(2 / 3)


# --- intervals -------------------------------------------------------------------------


def test_merge_intervals_touching_or_overlap_components() -> None:
    spans = [(5, 8), (0, 3), (3, 4), (7, 10), (12, 13), (20, 20)]
    assert merge_intervals(spans) == [(0, 4), (5, 10), (12, 13)]
    assert merge_intervals(spans, touching=False) == [(0, 3), (3, 4), (5, 10), (12, 13)]
    assert overlaps((0, 3), (2, 5)) and not overlaps((0, 3), (3, 5))


def test_mask_runs_merge_what_coverage_mask_painted() -> None:
    mask = coverage_mask(10, [(0, 2), (2, 4), (6, 7)])
    assert mask.tolist() == [True] * 4 + [False] * 2 + [True] + [False] * 3
    assert mask_runs(mask) == [(0, 4), (6, 7)]
    assert mask_runs(np.zeros(0, dtype=bool)) == []


# --- textmatch -------------------------------------------------------------------------


def _found(matcher: PhraseMatcher, text: str) -> list[str]:
    return [text[s:e] for s, e, _ in matcher.find(text)]


def test_strict_boundary_wants_no_word_character_either_side() -> None:
    matcher = PhraseMatcher.build(["paris", "-born"], boundary="strict")
    assert _found(matcher, "(paris) parisian 2paris paris-born") == ["paris", "paris"]


def test_edges_boundary_only_refuses_to_cut_a_word() -> None:
    matcher = PhraseMatcher.build(["paris", "-born"], boundary="edges")
    # "-born" starts with punctuation, so it may touch "paris"; "parisian" is still refused.
    assert _found(matcher, "(paris) parisian paris-born") == ["paris", "paris", "-born"]


def test_overlap_rules() -> None:
    candidates = [(0, 3, "a"), (2, 9, "b"), (8, 10, "c")]
    assert longest_first(candidates) == [(2, 9, "b")]
    assert leftmost_longest(candidates) == [(0, 3, "a"), (8, 10, "c")]


def test_lower_same_length_keeps_offsets() -> None:
    assert lower_same_length("İstanbul ABC") == "İstanbul abc"


def test_save_and_load(tmp_path: Path) -> None:
    keys = ["new york", "york"]
    path = PhraseMatcher.build(keys).save(tmp_path / "m.pkl")
    loaded = PhraseMatcher.load(path, keys)
    assert sorted(loaded.find("in new york")) == [(3, 11, 0), (7, 11, 1)]
    with pytest.raises(ValueError, match="boundary"):
        PhraseMatcher.build(keys, boundary="loose")
