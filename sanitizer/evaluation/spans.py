"""Span and token helpers shared by the evaluation metrics.

Tokens are maximal runs of word characters (``\\w+``), the unit TAB's evaluation
uses for token-level recall and precision. The "ignorable" characters are those
a mention may leave unmasked and still count as masked: punctuation, spaces and
the function words/titles that annotators disagree on including in a span. The
default word list is the one of TAB's ``evaluation.py`` (it has no "dr": titles
other than mr/mrs/ms are content the annotators were told to mask).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sanitizer.types import EntitySpan

TAB_IGNORED_WORDS: tuple[str, ...] = (
    "mr",
    "mrs",
    "ms",
    "and",
    "or",
    "from",
    "until",
    "to",
    "about",
    "after",
    "as",
    "at",
    "before",
    "between",
    "by",
    "during",
    "for",
    "in",
    "into",
    "of",
    "on",
    "over",
    "since",
    "with",
    "the",
    "a",
    "an",
    "no",
    "nr",
    "\u2019s",  # right single quotation mark + s
    "'s",
)
# TAB's punctuation list; whitespace of any kind (newlines, tabs) is added on top
# because TAB's list only has the plain space and mentions can wrap lines.
TAB_IGNORED_PUNCTUATION: str = ",.-;:/&()[]\u2013'\" \u2019\u201c\u201d"

_TOKEN_RE = re.compile(r"\w+")

BoolArray = npt.NDArray[np.bool_]


def word_tokens(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the ``(start, end)`` offsets of the ``\\w+`` tokens inside ``text[start:end]``.

    A word cut by the span boundary yields only its part inside the span, as in
    TAB's ``split_by_tokens``.
    """
    stop = len(text) if end is None else end
    return [m.span() for m in _TOKEN_RE.finditer(text, start, stop)]


@dataclass(frozen=True)
class IgnorableText:
    """Which characters of a mention need not be masked for it to count as masked."""

    words: tuple[str, ...] = TAB_IGNORED_WORDS
    punctuation: str = TAB_IGNORED_PUNCTUATION
    whitespace: bool = True

    def __post_init__(self) -> None:
        parts = [r"\b" + re.escape(w.lower()) + r"\b" for w in self.words]
        if self.punctuation:
            parts.append("[" + "".join(re.escape(c) for c in self.punctuation) + "]")
        if self.whitespace:
            parts.append(r"\s")
        pattern = "(?:" + "|".join(parts) + ")" if parts else r"(?!x)x"
        # frozen dataclass: cache the compiled pattern through object.__setattr__
        object.__setattr__(self, "_regex", re.compile(pattern, re.IGNORECASE))

    def ignorable_ranges(self, span_text: str) -> Iterator[tuple[int, int]]:
        """Yield offsets (relative to ``span_text``) of the parts that may stay unmasked.

        The text must be the mention (or token) alone: word boundaries are judged
        inside it, as TAB does, so "a" in "Pa" is not ignorable but a lone "a" is.
        """
        regex: re.Pattern[str] = self._regex  # type: ignore[attr-defined]
        for m in regex.finditer(span_text):
            yield m.span()

    def is_ignorable(self, span_text: str) -> bool:
        """Whether the whole of ``span_text`` may stay unmasked (e.g. a lone "the")."""
        covered = np.zeros(len(span_text), dtype=bool)
        for start, end in self.ignorable_ranges(span_text):
            covered[start:end] = True
        return bool(covered.all())


DEFAULT_IGNORABLE = IgnorableText()


def is_span_masked(
    text: str,
    start: int,
    end: int,
    masked: BoolArray,
    ignorable: IgnorableText = DEFAULT_IGNORABLE,
) -> bool:
    """Whether every character of ``text[start:end]`` is masked or ignorable.

    ``masked`` is a boolean array over the characters of ``text``.
    """
    window = masked[start:end]
    if window.all():
        return True
    uncovered = ~window
    for rel_start, rel_end in ignorable.ignorable_ranges(text[start:end]):
        uncovered[rel_start:rel_end] = False
    return not uncovered.any()


@dataclass(frozen=True, slots=True)
class LabeledSpan:
    """A character span with an optional category label (end exclusive)."""

    start: int
    end: int
    label: str | None = None


SpanLike = Sequence[Any] | Mapping[str, Any] | EntitySpan | LabeledSpan


def to_labeled_span(obj: SpanLike) -> LabeledSpan:
    """Normalise one span given as ``[start, end]``, ``[start, end, label]``, a dict
    (``start``/``end`` or ``start_offset``/``end_offset``, optional ``label`` or
    ``entity_type``), an :class:`EntitySpan` or a :class:`LabeledSpan`.

    Raises ``ValueError`` on malformed input or ``start >= end``.
    """
    if isinstance(obj, LabeledSpan):
        span = obj
    elif isinstance(obj, EntitySpan):
        span = LabeledSpan(obj.start, obj.end, obj.label)
    elif isinstance(obj, Mapping):
        start = obj.get("start", obj.get("start_offset"))
        end = obj.get("end", obj.get("end_offset"))
        label = obj.get("label", obj.get("entity_type"))
        if start is None or end is None:
            raise ValueError(f"span dict without start/end: {obj!r}")
        span = LabeledSpan(int(start), int(end), None if label is None else str(label))
    elif isinstance(obj, Sequence) and not isinstance(obj, str) and len(obj) in (2, 3):
        label = obj[2] if len(obj) == 3 else None
        span = LabeledSpan(int(obj[0]), int(obj[1]), None if label is None else str(label))
    else:
        raise ValueError(f"cannot read a span from {obj!r}")
    if not 0 <= span.start < span.end:
        raise ValueError(f"invalid span offsets {span.start}..{span.end}")
    return span
