"""Helpers that turn raw character ranges into clean ``EntitySpan``s."""

from __future__ import annotations

import regex

from sanitizer.types import SEMANTIC_TYPES, EntitySpan

# Leading words that are not part of an entity in TAB's guidelines ("the Ministry" -> "Ministry").
_LEADING_DETERMINER = regex.compile(r"^(?:the|a|an|The|A|An|THE)\s+")
_TRAILING_PUNCT = ".,;:!?)]}'\"\u00bb\u201d\u2019-\u2013\u2014/"
_LEADING_PUNCT = "([{'\"\u00ab\u201c\u2018-\u2013\u2014/,;:."
# A final period is kept when it closes an abbreviation or an initial ("Mr.", "Inc.", "J.").
_ABBREV_END = regex.compile(
    r"(?:^|[\s(])(?:\p{L}|Mr|Mrs|Ms|Mx|Dr|Prof|Rev|Fr|Sr|Sra|Srta|St|Ave|Rd|Blvd|Apt|Inc|Ltd|"
    r"Corp|Co|Jr|Hon|Mme|No|Nos|Ste|Ln|Pl|Sq|Ct|Dept|Univ|vs|al|ul|pl|av|str|S\.A|B\.V|N\.V|"
    r"a\.m|p\.m|\p{L}\.\p{L})\.$"
)


def sentence_initial(text: str, start: int, sentence_end_chars: frozenset[str]) -> bool:
    """Whether ``text[start:]`` starts a sentence: only spaces or tabs separate it from the text
    start or from one of ``sentence_end_chars`` (each component has its own set).
    """
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in sentence_end_chars


def clean_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` past whitespace, leading determiners and stray punctuation.

    Returns possibly empty bounds (``start >= end``) when nothing is left.
    """
    changed = True
    while changed and start < end:
        changed = False
        while start < end and (text[start].isspace() or text[start] in _LEADING_PUNCT):
            if text[start] == "(" and ")" in text[start:end]:
                break
            start += 1
            changed = True
        while end > start and text[end - 1].isspace():
            end -= 1
            changed = True
        m = _LEADING_DETERMINER.match(text[start:end])
        if m and start + m.end() < end:
            start += m.end()
            changed = True
        while end > start and text[end - 1] in _TRAILING_PUNCT:
            if text[end - 1] == "." and _ABBREV_END.search(text[max(start, end - 12) : end]):
                break
            if text[end - 1] == ")" and "(" in text[start : end - 1]:
                break
            end -= 1
            changed = True
    return start, end


def make_span(
    text: str,
    start: int,
    end: int,
    label: str,
    source: str,
    confidence: float | None = None,
    attrs: dict[str, object] | None = None,
    clean: bool = True,
) -> EntitySpan | None:
    """Build a span over ``text[start:end]`` (cleaned unless ``clean`` is false).

    Returns ``None`` when cleaning leaves no alphanumeric character.
    """
    if label not in SEMANTIC_TYPES:
        raise ValueError(f"unknown label {label!r}")
    if clean:
        start, end = clean_bounds(text, start, end)
    if start >= end or not any(ch.isalnum() for ch in text[start:end]):
        return None
    return EntitySpan(
        start=start,
        end=end,
        label=label,
        text=text[start:end],
        source=source,
        confidence=confidence,
        attrs=dict(attrs or {}),
    )
