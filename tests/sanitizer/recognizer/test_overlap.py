"""The overlap policy on hand-built candidate spans."""

from __future__ import annotations

import itertools

from sanitizer.recognizer.overlap import OverlapPolicy, resolve_overlaps
from sanitizer.types import EntitySpan

TEXT = "Mr John Smith paid EUR 3,000 on 5 August 1992 to anna@example.org today."


def span(
    text: str, label: str, source: str, rule: str | None = None, occurrence: int = 0
) -> EntitySpan:
    start = TEXT.index(text)
    for _ in range(occurrence):
        start = TEXT.index(text, start + 1)
    attrs = {"rule": rule} if rule else {}
    return EntitySpan(start, start + len(text), label, text, source, attrs=attrs)


def pairs(spans: list[EntitySpan]) -> list[tuple[str, str, str]]:
    return [(s.text, s.label, s.source) for s in spans]


def test_longer_span_wins() -> None:
    out = resolve_overlaps(
        TEXT,
        [span("1992", "DATETIME", "rules", "year"), span("5 August 1992", "DATETIME", "spacy_ner")],
    )
    assert pairs(out) == [("5 August 1992", "DATETIME", "spacy_ner")]


def test_priority_breaks_length_ties() -> None:
    out = resolve_overlaps(
        TEXT, [span("John Smith", "ORG", "spacy_ner"), span("John Smith", "PERSON", "gazetteer")]
    )
    assert pairs(out) == [("John Smith", "PERSON", "gazetteer")]


def test_structured_rule_beats_longer_ner_span_and_rest_is_trimmed() -> None:
    ner = span("anna@example.org today", "ORG", "spacy_ner")
    email = span("anna@example.org", "CODE", "rules", "email")
    out = resolve_overlaps(TEXT, [ner, email])
    # The e-mail wins although shorter; the NER leftover "today" has no digit/capital: dropped.
    assert pairs(out) == [("anna@example.org", "CODE", "rules")]


def test_partial_overlap_keeps_uncovered_piece() -> None:
    person = span("Mr John Smith", "PERSON", "spacy_ner")
    title = span("Mr", "DEM", "gazetteer")
    money = span("EUR 3,000", "QUANTITY", "rules", "money_code_before")
    wide = span("Smith paid EUR", "ORG", "spacy_ner")
    out = resolve_overlaps(TEXT, [person, title, money, wide])
    # "Smith paid EUR" (14 chars) is the longest candidate and wins; the person and money spans
    # keep their uncovered pieces, the contained "Mr" is dropped.
    assert pairs(out) == [
        ("Mr John", "PERSON", "spacy_ner"),
        ("Smith paid EUR", "ORG", "spacy_ner"),
        ("3,000", "QUANTITY", "rules"),
    ]


def test_trimmed_pieces_keep_capitalised_words_only_on_word_boundaries() -> None:
    person = span("John Smith", "PERSON", "gazetteer")
    wide = span("Mr John", "MISC", "spacy_ner")
    out = resolve_overlaps(TEXT, [person, wide])
    assert pairs(out) == [("Mr", "MISC", "spacy_ner"), ("John Smith", "PERSON", "gazetteer")]
    assert out[0].attrs["trimmed"] is True


def test_no_trimming_when_disabled() -> None:
    person = span("John Smith", "PERSON", "gazetteer")
    wide = span("Mr John", "MISC", "spacy_ner")
    out = resolve_overlaps(TEXT, [person, wide], OverlapPolicy(trim_partial=False))
    assert pairs(out) == [("John Smith", "PERSON", "gazetteer")]


def test_output_is_sorted_disjoint_and_deduplicated() -> None:
    cands = [
        span("3,000", "QUANTITY", "spacy_ner"),
        span("EUR 3,000", "QUANTITY", "rules", "money_code_before"),
        span("EUR 3,000", "QUANTITY", "rules", "money_code_before"),
        span("Mr", "DEM", "gazetteer"),
        span("5 August 1992", "DATETIME", "rules", "date_day_month_year"),
    ]
    out = resolve_overlaps(TEXT, cands)
    assert [s.text for s in out] == ["Mr", "EUR 3,000", "5 August 1992"]
    assert all(a.end <= b.start for a, b in itertools.pairwise(out))
