"""The policy that turns overlapping candidates from several components into disjoint spans.

Policy (``resolve_overlaps``), applied greedily in rank order:

1. **Structured identifiers first.** A span from a rule named in ``OverlapPolicy.exact_rules``
   (e-mail, URL, IBAN, phone, card, SSN, IP, ECHR application number, ages) outranks everything:
   such identifiers must never be split or relabelled by a tokenizer-driven NER span.
2. **Longer span wins** otherwise ("5 August 1992" beats "1992", "police officer" beats "officer").
3. **Component priority breaks length ties**: rules > gazetteer > spacy_ner > proper_nouns
   (hand-written patterns are more precise than a generic model on the same characters).
4. **Leftmost** span wins remaining ties, then label order in ``SEMANTIC_TYPES`` (deterministic).
5. A lower-ranked span that only *partly* overlaps accepted spans is not thrown away when
   ``trim_partial`` is on: its uncovered pieces that start and end on word boundaries are kept
   with its label, so that no detected token is lost for masking. A piece must contain a digit
   or an upper-case letter: lower-case leftovers are function words ("the age of" around an age).

The result is sorted by start and pairwise disjoint.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sanitizer.recognizer.spans import make_span
from sanitizer.types import SEMANTIC_TYPES, EntitySpan

DEFAULT_PRIORITIES: dict[str, int] = {
    "rules": 30,
    "gazetteer": 20,
    "spacy_ner": 10,
    "proper_nouns": 5,
}


@dataclass(frozen=True)
class OverlapPolicy:
    """Parameters of ``resolve_overlaps``; unknown sources get priority 0."""

    priorities: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_PRIORITIES))
    exact_rules: frozenset[str] = frozenset(
        {
            "email",
            "url",
            "domain",
            "ipv4",
            "ipv6",
            "iban",
            "ssn",
            "card_number",
            "phone",
            "application_number",
            "age_years_old",
            "age_aged",
            "age_year_old_noun",
        }
    )
    trim_partial: bool = True

    def signature(self) -> str:
        """Compact description used in the pipeline version string."""
        prio = ",".join(f"{k}={v}" for k, v in sorted(self.priorities.items()))
        exact = ",".join(sorted(self.exact_rules))
        return f"overlap[{prio};exact={exact};trim={int(self.trim_partial)}]"


def _rank(span: EntitySpan, policy: OverlapPolicy) -> tuple[int, int, int, int, int]:
    return (
        1 if span.source == "rules" and span.attrs.get("rule") in policy.exact_rules else 0,
        span.end - span.start,
        policy.priorities.get(span.source, 0),
        -span.start,
        -SEMANTIC_TYPES.index(span.label),
    )


def _free_pieces(start: int, end: int, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    cursor = start
    for t_start, t_end in sorted(taken):
        if t_end <= cursor or t_start >= end:
            continue
        if t_start > cursor:
            pieces.append((cursor, t_start))
        cursor = max(cursor, t_end)
    if cursor < end:
        pieces.append((cursor, end))
    return pieces


def _on_word_boundaries(text: str, start: int, end: int) -> bool:
    starts_ok = start == 0 or not (text[start - 1].isalnum() and text[start].isalnum())
    ends_ok = end == len(text) or not (text[end - 1].isalnum() and text[end].isalnum())
    return starts_ok and ends_ok


def resolve_overlaps(
    text: str, spans: Iterable[EntitySpan], policy: OverlapPolicy | None = None
) -> list[EntitySpan]:
    """Select disjoint spans from overlapping candidates (see module docstring for the rules).

    ``text`` is the text the spans index into (needed to re-clean trimmed pieces).
    """
    policy = policy or OverlapPolicy()
    ranked = sorted(set(spans), key=lambda s: _rank(s, policy), reverse=True)
    accepted: list[EntitySpan] = []
    taken: list[tuple[int, int]] = []
    for cand in ranked:
        overlapping = [(a, b) for a, b in taken if a < cand.end and cand.start < b]
        if not overlapping:
            accepted.append(cand)
            taken.append((cand.start, cand.end))
            continue
        if not policy.trim_partial:
            continue
        for p_start, p_end in _free_pieces(cand.start, cand.end, overlapping):
            piece = make_span(
                text,
                p_start,
                p_end,
                cand.label,
                cand.source,
                cand.confidence,
                {**cand.attrs, "trimmed": True},
            )
            if piece is None or not _on_word_boundaries(text, piece.start, piece.end):
                continue
            if not any(ch.isdigit() or ch.isupper() for ch in piece.text):
                continue
            if any(a < piece.end and piece.start < b for a, b in taken):
                continue
            accepted.append(piece)
            taken.append((piece.start, piece.end))
    accepted.sort(key=lambda s: (s.start, s.end))
    return accepted


def merge_priority(sources: Mapping[str, int] | None) -> dict[str, int]:
    """Default priorities updated with ``sources`` (used when reading configs)."""
    merged = dict(DEFAULT_PRIORITIES)
    merged.update(sources or {})
    return merged
