"""BIO conversion, windowing, window merging and span decoding (hand-checked)."""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

from sanitizer.training import (
    EncodedText,
    Tagger,
    TrainingConfig,
    bio_tags_for,
    decode_spans,
    encode_text,
    make_windows,
    merge_center,
    merge_mean,
    relabel_for_masking,
)
from sanitizer.training.encoding import align_to_words, special_tokens
from sanitizer.types import EntitySpan

LABELS = ["PERSON", "LOC", "DATETIME"]


def span_at(text: str, value: str, label: str, occurrence: int = 0) -> EntitySpan:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(value, start + 1)
    return EntitySpan(start, start + len(value), label, value)


def test_special_tokens_of_bert_tokenizer(tokenizer: Any) -> None:
    special = special_tokens(tokenizer)
    assert special.prefix == [tokenizer.cls_token_id]
    assert special.suffix == [tokenizer.sep_token_id]


def test_bio_tags_with_offsets_and_punctuation(tokenizer: Any) -> None:
    text = "John Smith-Jones lives at 12 Baker St. in Zürich"
    enc = encode_text(tokenizer, text)
    # Tokens: john smith - jones lives at 12 baker st . in zurich
    assert enc.offsets == [
        (0, 4), (5, 10), (10, 11), (11, 16), (17, 22), (23, 25),
        (26, 28), (29, 34), (35, 37), (37, 38), (39, 41), (42, 48),
    ]  # fmt: skip
    spans = [
        span_at(text, "John Smith-Jones", "PERSON"),
        span_at(text, "12 Baker St.", "LOC"),
        span_at(text, "Zürich", "LOC"),
    ]
    assert bio_tags_for(enc, spans, LABELS) == [
        "B-PERSON", "I-PERSON", "I-PERSON", "I-PERSON", "O", "O",
        "B-LOC", "I-LOC", "I-LOC", "I-LOC", "O", "B-LOC",
    ]  # fmt: skip


def test_bio_tags_on_subwords(tokenizer: Any) -> None:
    text = "Kowalczykowski met  Ms. Brzezinski in 2011."
    enc = encode_text(tokenizer, text)
    # ko ##wal ##cz ##yk ##owski | met | ms | . | br ##ze ##zin ##ski | in | 2011 | .
    assert len(enc) == 15
    spans = [
        span_at(text, "Kowalczykowski", "PERSON"),
        span_at(text, "Brzezinski", "PERSON"),
        span_at(text, "2011", "DATETIME"),
        span_at(text, "met", "ORG"),  # label outside the set: ignored
    ]
    assert bio_tags_for(enc, spans, LABELS) == (
        ["B-PERSON"] + ["I-PERSON"] * 4 + ["O", "O", "O"]
        + ["B-PERSON"] + ["I-PERSON"] * 3 + ["O", "B-DATETIME", "O"]
    )  # fmt: skip


def test_span_boundary_inside_a_token_widens_to_the_token(tokenizer: Any) -> None:
    enc = encode_text(tokenizer, "Smithson")  # smith (0,5) ##son (5,8)
    assert bio_tags_for(enc, [EntitySpan(0, 5, "PERSON", "Smith")], LABELS) == ["B-PERSON", "O"]
    assert bio_tags_for(enc, [EntitySpan(0, 6, "PERSON", "Smiths")], LABELS) == [
        "B-PERSON",
        "I-PERSON",
    ]


def test_overlapping_spans_keep_the_earlier_longer_one(tokenizer: Any) -> None:
    text = "the cat sat on the mat ."
    enc = encode_text(tokenizer, text)
    spans = [
        span_at(text, "cat sat", "PERSON"),  # overlaps "the cat": dropped
        span_at(text, "sat on", "LOC"),  # only overlapped "cat sat": kept
        span_at(text, "the cat", "LOC"),  # starts first: kept
    ]
    # Two adjacent spans of one label stay apart thanks to the second B-.
    assert bio_tags_for(enc, spans, LABELS) == [
        "B-LOC", "I-LOC", "B-LOC", "I-LOC", "O", "O", "O",
    ]  # fmt: skip


def test_align_to_words_and_decode_snap_to_whole_words(tokenizer: Any) -> None:
    text = "Smithson went home"
    enc = encode_text(tokenizer, text)  # smith ##son went home
    aligned = align_to_words(enc, ["B-PERSON", "O", "O", "O"])
    assert aligned == ["B-PERSON", "I-PERSON", "O", "O"]
    spans = decode_spans(enc, aligned, [0.9, 0.5, 0.8, 0.8], source="m@1")
    assert spans == [EntitySpan(0, 8, "PERSON", "Smithson", "m@1", 0.7)]
    assert spans[0].confidence == pytest.approx(0.7)


def test_decode_lenient_bio_and_whitespace_trim() -> None:
    text = " ab cd ef"
    # A sentencepiece-style tokenizer may include the leading space in a token.
    enc = EncodedText(text, [1, 2, 3], [(0, 3), (3, 6), (6, 9)], [0, 1, 2])
    spans = decode_spans(enc, ["B-X", "I-X", "I-Y"])
    assert [(s.start, s.end, s.label, s.text) for s in spans] == [
        (1, 6, "X", "ab cd"),
        (7, 9, "Y", "ef"),
    ]
    assert spans[0].confidence is None
    # I- after O starts a span; B- right after a span starts a new one.
    spans = decode_spans(enc, ["O", "I-X", "B-X"])
    assert [(s.start, s.end) for s in spans] == [(4, 6), (7, 9)]


@pytest.mark.parametrize(
    ("n", "size", "overlap", "expected"),
    [
        (0, 4, 1, []),
        (3, 4, 1, [(0, 3)]),
        (4, 4, 1, [(0, 4)]),
        (10, 4, 1, [(0, 4), (3, 7), (6, 10)]),
        (11, 4, 1, [(0, 4), (3, 7), (6, 10), (7, 11)]),
        (9, 4, 0, [(0, 4), (4, 8), (5, 9)]),
    ],
)
def test_make_windows_hand_checked(
    n: int, size: int, overlap: int, expected: list[tuple[int, int]]
) -> None:
    assert make_windows(n, size, overlap) == expected


def test_make_windows_cover_every_token_with_overlap() -> None:
    for n in range(1, 80):
        for size in range(4, 10):
            for overlap in range(0, size // 2 + 1):
                windows = make_windows(n, size, overlap)
                covered: set[int] = set()
                for start, end in windows:
                    assert 0 <= start < end <= n
                    assert end - start <= size
                    covered.update(range(start, end))
                assert covered == set(range(n))
                for (s1, e1), (s2, _) in itertools.pairwise(windows):
                    assert s1 < s2
                    assert e1 - s2 >= overlap


def test_make_windows_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError):
        make_windows(10, 4, 4)


def test_merge_center_and_mean_hand_checked() -> None:
    windows = [(0, 3), (2, 5)]
    logits = [np.array([[1.0], [2.0], [3.0]]), np.array([[10.0], [20.0], [30.0]])]
    # token 2 is on the edge of both windows (centrality 0 in each): earlier window wins.
    assert merge_center(5, windows, logits)[:, 0].tolist() == [1, 2, 3, 20, 30]
    assert merge_mean(5, windows, logits)[:, 0].tolist() == [1, 2, 6.5, 20, 30]


class _WindowLocalTagger(torch.nn.Module):
    """Fake classifier that sees only its window: tags ``entity_ids`` tokens B/I-PERSON.

    A token is ``B`` when the previous position of the *window* is not an entity
    token, so an entity continuing across a window start is wrongly ``B`` there;
    only the window merge can repair it.
    """

    def __init__(self, entity_ids: set[int]) -> None:
        super().__init__()
        self.entity_ids = entity_ids
        self.config = SimpleNamespace(num_labels=3)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> Any:
        logits = torch.zeros((*input_ids.shape, 3))
        for row in range(input_ids.shape[0]):
            previous = False
            for col, token in enumerate(input_ids[row].tolist()):
                current = token in self.entity_ids
                tag = 0 if not current else (2 if previous else 1)
                logits[row, col, tag] = 10.0
                previous = current
        return SimpleNamespace(logits=logits)


def test_window_merge_gives_back_spans_across_window_borders(tokenizer: Any) -> None:
    name = "Kowalczykowski Brzezinski Kowalczykowski Brzezinski"  # 18 word pieces
    filler = "the cat sat on the mat . "  # 7 tokens
    text = filler * 2 + name + " . " + filler * 3
    config = TrainingConfig(labels=["PERSON"], max_length=16, window_overlap=4)
    enc = encode_text(tokenizer, text)
    entity = span_at(text, name, "PERSON")
    entity_tokens = [i for i, (s, e) in enumerate(enc.offsets) if s < entity.end and e > s >= 0]
    entity_tokens = [i for i in entity_tokens if enc.offsets[i][0] >= entity.start]
    assert (entity_tokens[0], entity_tokens[-1]) == (14, 31)
    windows = make_windows(len(enc), 16 - 2, 4)
    # The entity is longer than a window and two window starts fall inside it.
    assert [s for s, _ in windows if 14 < s <= 31] == [20, 30]

    entity_ids = {enc.input_ids[i] for i in entity_tokens}
    manifest = {
        "config": config.to_dict(),
        "tags": config.tags,
        "labels": config.labels,
        "model_version": "test",
    }
    tagger = Tagger(_WindowLocalTagger(entity_ids), tokenizer, manifest, torch.device("cpu"))
    spans = tagger.predict(text)
    assert [(s.start, s.end, s.label, s.text) for s in spans] == [
        (entity.start, entity.end, "PERSON", name)
    ]
    assert spans[0].source == "token-tagger@test"
    # Every token's winning logits are one-hot 10.0 over 3 tags.
    assert spans[0].confidence == pytest.approx(1 / (1 + 2 * math.exp(-10)))

    # The mean merge averages a B and an I vote at the window starts; whatever it picks,
    # the spans it returns are well-formed and stay inside the name.
    tagger_mean = Tagger(
        _WindowLocalTagger(entity_ids), tokenizer, manifest, torch.device("cpu"),
        merge_strategy="mean",
    )  # fmt: skip
    for s in tagger_mean.predict_batch([text, ""])[0]:
        assert entity.start <= s.start < s.end <= entity.end
        assert text[s.start : s.end] == s.text
    assert tagger_mean.predict("") == []


def test_relabel_for_masking_drops_no_mask() -> None:
    text = "Ann met Bob"
    examples = [
        (
            text,
            [
                EntitySpan(0, 3, "PERSON", "Ann", identifier_type="DIRECT"),
                EntitySpan(8, 11, "PERSON", "Bob", identifier_type="NO_MASK"),
                EntitySpan(4, 7, "MISC", "met"),
            ],
        )
    ]
    ((out_text, spans),) = relabel_for_masking(examples)
    assert out_text == text
    assert [(s.start, s.end, s.label) for s in spans] == [(0, 3, "MASK"), (4, 7, "MASK")]
