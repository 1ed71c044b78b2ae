"""Words, masked text and the utility measures."""

from __future__ import annotations

import pytest

from sanitizer.reid.words import (
    information_loss,
    masked_text,
    masked_words,
    share_masked,
    terms,
    word_spans,
)

TEXT = "Ana Silva, a nurse, was born in Braga (1987). Ana lives in Porto."


def test_word_spans_and_terms_skip_punctuation_and_stopwords() -> None:
    words = [TEXT[s:e] for s, e in word_spans(TEXT)]
    assert words[:4] == ["Ana", "Silva", "a", "nurse"]
    assert terms(TEXT) == [
        "ana",
        "silva",
        "nurse",
        "born",
        "braga",
        "1987",
        "ana",
        "lives",
        "porto",
    ]


def test_a_mask_touching_part_of_a_word_masks_the_whole_word() -> None:
    flags = masked_words(TEXT, [(1, 2), (32, 35)])  # inside "Ana"; "Bra" of "Braga"
    masked = [TEXT[s:e] for (s, e), f in zip(word_spans(TEXT), flags, strict=True) if f]
    assert masked == ["Ana", "Braga"]
    assert masked_text(TEXT, [(1, 2), (32, 35)]).startswith(
        "[MASK] Silva, a nurse, was born in [MASK] (1987)."
    )


def test_share_masked_counts_words() -> None:
    n = len(word_spans(TEXT))
    assert share_masked(TEXT, []) == 0.0
    assert share_masked(TEXT, [(0, 9)]) == pytest.approx(2 / n)
    assert share_masked(TEXT, [(0, len(TEXT))]) == 1.0
    assert share_masked("", [(0, 3)]) == 0.0


def test_information_loss_grows_with_the_masks() -> None:
    none = information_loss(TEXT, [])
    some = information_loss(TEXT, [(0, 9), (32, 37)])
    everything = information_loss(TEXT, [(0, len(TEXT))])
    assert none == 0.0
    assert 0.0 < some < everything <= 1.0
    assert everything > 0.5


def test_empty_masks_mask_nothing_and_touching_masks_stop_at_their_end() -> None:
    text = "Ana Silva"
    assert masked_words(text, [(2, 2), (5, 5)]) == [False, False]
    # (0, 3) and (3, 4) touch: together they cover "Ana " and reach no letter of "Silva".
    assert masked_words(text, [(3, 4), (0, 3)]) == [True, False]
    assert masked_words(text, [(3, 5), (0, 3)]) == [True, True]
