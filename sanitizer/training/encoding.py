"""Text <-> token conversion for token classification: BIO labels, windows, span decoding.

A document is tokenized once, without special tokens and without truncation. Long
documents are then cut into overlapping token windows (every token is in at least one
window); per-window logits are merged back into one row per document token before
decoding. Nothing here imports torch: logits are numpy arrays.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sanitizer.training.config import OUTSIDE_TAG
from sanitizer.training.registry import label_schemes, merge_strategies
from sanitizer.types import SEMANTIC_TYPES, EntitySpan

#: Label id the loss ignores (special tokens, padding); torch's CrossEntropyLoss default.
IGNORE_INDEX = -100


@label_schemes.register("tab")
def tab_labels() -> list[str]:
    """The 8 TAB semantic categories, for the typed recognizer."""
    return list(SEMANTIC_TYPES)


@label_schemes.register("mask")
def mask_labels() -> list[str]:
    """The single ``MASK`` label of the masking tagger (seed 000, B-MASK/I-MASK/O)."""
    return ["MASK"]


@dataclass(frozen=True, slots=True)
class EncodedText:
    """A text tokenized without special tokens.

    ``offsets[i]`` is the character range of token ``i``; ``word_ids[i]`` is the index
    of the pre-tokenizer word the token belongs to (``None`` when unknown).
    """

    text: str
    input_ids: list[int]
    offsets: list[tuple[int, int]]
    word_ids: list[int | None]

    def __len__(self) -> int:
        return len(self.input_ids)


@dataclass(frozen=True, slots=True)
class SpecialTokens:
    """The special-token ids a model puts before and after a single sequence."""

    prefix: list[int]
    suffix: list[int]

    @property
    def count(self) -> int:
        """Number of special tokens added to each window."""
        return len(self.prefix) + len(self.suffix)


def special_tokens(tokenizer: Any) -> SpecialTokens:
    """Find the special tokens ``tokenizer`` wraps a single sequence in.

    Derived by encoding a one-character text, which works for BERT-, RoBERTa- and
    sentencepiece-style tokenizers alike without relying on tokenizer-specific methods.
    """
    enc = tokenizer("a", add_special_tokens=True, return_special_tokens_mask=True)
    ids: list[int] = list(enc["input_ids"])
    mask: list[int] = list(enc["special_tokens_mask"])
    content = [i for i, m in enumerate(mask) if m == 0]
    if not content:
        raise ValueError("could not locate the content tokens of a probe text")
    return SpecialTokens(prefix=ids[: content[0]], suffix=ids[content[-1] + 1 :])


def encode_text(tokenizer: Any, text: str) -> EncodedText:
    """Tokenize ``text`` completely (no special tokens, no truncation).

    Requires a fast tokenizer (offset mapping). ``verbose=False`` silences the
    "sequence longer than the model maximum" warning: windows handle long texts.
    """
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError("a fast tokenizer (with offset mapping) is required")
    enc = tokenizer(
        text,
        add_special_tokens=False,
        truncation=False,
        return_offsets_mapping=True,
        verbose=False,
    )
    offsets = [(int(s), int(e)) for s, e in enc["offset_mapping"]]
    return EncodedText(
        text=text,
        input_ids=list(enc["input_ids"]),
        offsets=offsets,
        word_ids=list(enc.word_ids()),
    )


def select_spans(spans: Iterable[EntitySpan], labels: Sequence[str]) -> list[EntitySpan]:
    """Keep spans whose label is in ``labels`` and drop overlaps.

    Overlapping spans cannot both be encoded in one BIO sequence; the earlier span wins,
    and at equal starts the longer one (it contains the other).
    """
    wanted = set(labels)
    candidates = sorted(
        (s for s in spans if s.label in wanted), key=lambda s: (s.start, -(s.end - s.start))
    )
    kept: list[EntitySpan] = []
    for span in candidates:
        if kept and span.start < kept[-1].end:
            continue
        kept.append(span)
    return kept


def bio_tags_for(
    encoded: EncodedText, spans: Iterable[EntitySpan], labels: Sequence[str]
) -> list[str]:
    """Return one BIO tag per token of ``encoded`` for the character ``spans``.

    A token belongs to a span when their character ranges overlap, so a span boundary
    inside a token widens the span to the whole token. The first token of a span gets
    ``B-``, the rest ``I-``. Spans with labels outside ``labels`` are ignored and
    overlapping spans resolved by :func:`select_spans`.
    """
    tags = [OUTSIDE_TAG] * len(encoded)
    ends = [e for _, e in encoded.offsets]
    for span in select_spans(spans, labels):
        first = True
        i = bisect.bisect_right(ends, span.start)
        while i < len(encoded) and encoded.offsets[i][0] < span.end:
            start, end = encoded.offsets[i]
            # Zero-width tokens carry no text; a token already claimed by the previous
            # span (both spans end/start inside it) keeps its first tag.
            if end > start and tags[i] == OUTSIDE_TAG:
                tags[i] = f"{'B' if first else 'I'}-{span.label}"
                first = False
            i += 1
    return tags


def make_windows(n_tokens: int, window_size: int, overlap: int) -> list[tuple[int, int]]:
    """Cut ``n_tokens`` into ``[start, end)`` windows of at most ``window_size`` tokens.

    Consecutive windows share at least ``overlap`` tokens; the last window is aligned to
    the end of the text (so it may share more), and every token is in some window.
    """
    if window_size < 1 or not 0 <= overlap < window_size:
        raise ValueError("need window_size >= 1 and 0 <= overlap < window_size")
    if n_tokens <= 0:
        return []
    if n_tokens <= window_size:
        return [(0, n_tokens)]
    step = window_size - overlap
    starts = list(range(0, n_tokens - window_size, step))
    starts.append(n_tokens - window_size)
    return [(s, s + window_size) for s in starts]


@merge_strategies.register("center")
def merge_center(
    n_tokens: int, windows: Sequence[tuple[int, int]], logits: Sequence[np.ndarray]
) -> np.ndarray:
    """Per token, take the logits of the window where the token is most central.

    Centrality is the distance to the nearer window edge; ties go to the earlier window.
    """
    if not windows:
        return np.zeros((0, 0), dtype=np.float32)
    merged = np.zeros((n_tokens, logits[0].shape[-1]), dtype=np.float32)
    best = np.full(n_tokens, -1, dtype=np.int64)
    for (start, end), window_logits in zip(windows, logits, strict=True):
        positions = np.arange(start, end)
        centrality = np.minimum(positions - start, end - 1 - positions)
        better = centrality > best[start:end]
        merged[start:end][better] = window_logits[better]
        best[start:end][better] = centrality[better]
    return merged


@merge_strategies.register("mean")
def merge_mean(
    n_tokens: int, windows: Sequence[tuple[int, int]], logits: Sequence[np.ndarray]
) -> np.ndarray:
    """Per token, average the logits of every window that contains it."""
    if not windows:
        return np.zeros((0, 0), dtype=np.float32)
    total = np.zeros((n_tokens, logits[0].shape[-1]), dtype=np.float32)
    count = np.zeros((n_tokens, 1), dtype=np.float32)
    for (start, end), window_logits in zip(windows, logits, strict=True):
        total[start:end] += window_logits
        count[start:end] += 1
    return total / np.maximum(count, 1)


def get_merge_strategy(
    name: str,
) -> Callable[[int, Sequence[tuple[int, int]], Sequence[np.ndarray]], np.ndarray]:
    """Look up a registered window-merge function by name."""
    return merge_strategies.get(name)  # type: ignore[no-any-return]


def align_to_words(encoded: EncodedText, tags: Sequence[str]) -> list[str]:
    """Give every subword the tag of its word's first subword (``B-x`` becomes ``I-x``).

    This snaps predicted spans to whole words: a word is never half masked.
    """
    aligned: list[str] = []
    for i, tag in enumerate(tags):
        word = encoded.word_ids[i]
        if i > 0 and word is not None and encoded.word_ids[i - 1] == word:
            head = aligned[i - 1]
            aligned.append(OUTSIDE_TAG if head == OUTSIDE_TAG else f"I-{head[2:]}")
        else:
            aligned.append(tag)
    return aligned


def decode_spans(
    encoded: EncodedText,
    tags: Sequence[str],
    confidences: Sequence[float] | None = None,
    source: str = "",
) -> list[EntitySpan]:
    """Turn per-token BIO ``tags`` into character spans on token boundaries.

    ``I-x`` after ``O`` or after another label starts a new span (lenient BIO). Span
    edges are trimmed of whitespace (some tokenizers put spaces inside tokens).
    ``confidence`` is the mean of ``confidences`` over the span's tokens, or ``None``.
    """
    text = encoded.text
    spans: list[EntitySpan] = []
    current: tuple[str, list[int]] | None = None

    def close() -> None:
        if current is None:
            return
        label, idx = current
        start = encoded.offsets[idx[0]][0]
        end = encoded.offsets[idx[-1]][1]
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end <= start:
            return
        conf = None
        if confidences is not None:
            conf = float(np.mean([confidences[i] for i in idx]))
        spans.append(
            EntitySpan(
                start=start,
                end=end,
                label=label,
                text=text[start:end],
                source=source,
                confidence=conf,
            )
        )

    for i, tag in enumerate(tags):
        start, end = encoded.offsets[i]
        if end <= start:
            # Zero-width tokens neither start nor break a span.
            continue
        if tag == OUTSIDE_TAG:
            close()
            current = None
            continue
        prefix, label = tag[:2], tag[2:]
        if prefix == "I-" and current is not None and current[0] == label:
            current[1].append(i)
        else:
            close()
            current = (label, [i])
    close()
    return spans


def relabel_for_masking(
    examples: Iterable[tuple[str, Sequence[EntitySpan]]],
    keep: Callable[[EntitySpan], bool] | None = None,
    label: str = "MASK",
) -> list[tuple[str, list[EntitySpan]]]:
    """Turn typed examples into masking-tagger examples (every kept span labelled ``label``).

    By default a span is kept unless its ``identifier_type`` is ``NO_MASK``, so TAB
    annotations and distant labels (which carry no identifier type) both work.
    """

    def default_keep(span: EntitySpan) -> bool:
        return span.identifier_type != "NO_MASK"

    predicate = keep or default_keep
    out: list[tuple[str, list[EntitySpan]]] = []
    for text, spans in examples:
        out.append(
            (
                text,
                [dataclasses.replace(s, label=label) for s in spans if predicate(s)],
            )
        )
    return out
