"""Words, masks and the utility measures of seed 004 §6 (share masked, information loss).

A *word* is a maximal ``\\w+`` run. A mask covers whole words: any word it touches counts
as masked, and the masked text shows one ``[MASK]`` per masked word with punctuation kept.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from sanitizer.intervals import merge_intervals
from sanitizer.reid.base import Span

WORD = re.compile(r"\w+")
STOPWORDS: frozenset[str] = frozenset(ENGLISH_STOP_WORDS)
MASK_TOKEN = "[MASK]"


def word_spans(text: str) -> list[Span]:
    """``(start, end)`` of every word, in order."""
    return [m.span() for m in WORD.finditer(text)]


def is_stopword(word: str) -> bool:
    """Whether ``word`` (any case) is an English stopword."""
    return word.lower() in STOPWORDS


def terms(text: str) -> list[str]:
    """Lower-cased words minus stopwords: the lexical models' tokens."""
    return [w for w in (m.group().lower() for m in WORD.finditer(text)) if w not in STOPWORDS]


def masked_flags(spans: Sequence[Span], masks: Sequence[Span]) -> list[bool]:
    """For each of ``spans`` (sorted), whether some mask overlaps it."""
    merged = merge_intervals(masks)
    flags: list[bool] = []
    j = 0
    for s, e in spans:
        while j < len(merged) and merged[j][1] <= s:
            j += 1
        flags.append(j < len(merged) and merged[j][0] < e)
    return flags


def masked_words(text: str, masks: Sequence[Span]) -> list[bool]:
    """For each word of ``text``, whether a mask touches it."""
    return masked_flags(word_spans(text), masks)


def masked_text(text: str, masks: Sequence[Span], token: str = MASK_TOKEN) -> str:
    """``text`` with every masked word replaced by ``token`` (punctuation and spaces kept)."""
    spans = word_spans(text)
    parts: list[str] = []
    pos = 0
    for (s, e), m in zip(spans, masked_flags(spans, masks), strict=True):
        if m:
            parts.append(text[pos:s])
            parts.append(token)
            pos = e
    parts.append(text[pos:])
    return "".join(parts)


def share_masked(text: str, masks: Sequence[Span]) -> float:
    """Fraction of the words that are masked (0 for a text without words)."""
    flags = masked_words(text, masks)
    return sum(flags) / len(flags) if flags else 0.0


def information_loss(text: str, masks: Sequence[Span]) -> float:
    """Relative loss of zlib-compressed size once the masked words are removed (seed 004 §6).

    ``1 - |zlib(text without masked words)| / |zlib(text)|``, clipped to [0, 1]; a masked
    word leaves nothing behind so that masking everything loses (almost) everything.
    """
    if not text:
        return 0.0
    kept = masked_text(text, masks, token="")
    full = len(zlib.compress(text.encode("utf-8"), 9))
    rest = len(zlib.compress(kept.encode("utf-8"), 9))
    return float(min(1.0, max(0.0, 1.0 - rest / full)))
