"""Gazetteer: finds occurrences of index terms in a document.

An Aho-Corasick automaton (pyahocorasick) over every normalised index term scans
the document once. Matching is case-insensitive and whitespace-insensitive (the
document is folded with the same character folding as index terms and its
whitespace runs collapsed, keeping a map back to original offsets), only accepts
matches on token boundaries, and keeps the leftmost-longest non-overlapping
matches.
"""

from __future__ import annotations

import os
import pickle
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import ahocorasick

from sanitizer.kanon.variants import fold_chars, normalize

_WS_RUN = re.compile(r"\s+")
_NEEDS_COLLAPSE = re.compile(r"[^\S ]|  ")


@dataclass(frozen=True, slots=True)
class GazetteerMatch:
    """One term occurrence: ``text[start:end]`` (original offsets) matched ``term``."""

    start: int
    end: int
    term: str


def normalize_text(text: str) -> tuple[str, list[int] | None]:
    """Fold ``text`` and collapse whitespace runs to one space.

    Returns the normalised text and, when collapsing changed offsets, a list giving
    for each normalised position its original position (``None`` means identity).
    """
    folded = fold_chars(text)
    if not _NEEDS_COLLAPSE.search(folded):
        return folded, None
    pieces: list[str] = []
    mapping: list[int] = []
    pos = 0
    for m in _WS_RUN.finditer(folded):
        pieces.append(folded[pos : m.start()])
        mapping.extend(range(pos, m.start()))
        pieces.append(" ")
        mapping.append(m.start())
        pos = m.end()
    pieces.append(folded[pos:])
    mapping.extend(range(pos, len(folded)))
    return "".join(pieces), mapping


class Gazetteer:
    """Longest-match, token-boundary term finder over a fixed term list."""

    def __init__(self, terms: Sequence[str], automaton: ahocorasick.Automaton) -> None:
        self.terms = terms
        self._automaton = automaton

    @classmethod
    def from_terms(cls, terms: Sequence[str]) -> Gazetteer:
        """Build the automaton; ``terms`` must already be normalised (as index terms are).

        Values stored are positions in ``terms``, so the list is kept, not copied.
        """
        automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        for i, term in enumerate(terms):
            if term:
                automaton.add_word(term, i)
        automaton.make_automaton()
        return cls(terms, automaton)

    @classmethod
    def from_strings(cls, strings: Iterable[str]) -> Gazetteer:
        """Build from raw strings (normalised and de-duplicated here)."""
        return cls.from_terms(sorted({normalize(s) for s in strings} - {""}))

    def find(self, text: str) -> list[GazetteerMatch]:
        """Leftmost-longest, non-overlapping term occurrences on token boundaries."""
        if self._automaton.kind != ahocorasick.AHOCORASICK or not text:
            return []
        norm, mapping = normalize_text(text)
        n = len(norm)
        terms = self.terms
        candidates: list[tuple[int, int, int]] = []
        for end_idx, tid in self._automaton.iter(norm):
            end = end_idx + 1
            start = end - len(terms[tid])
            if start > 0 and norm[start - 1].isalnum() and norm[start].isalnum():
                continue
            if end < n and norm[end].isalnum() and norm[end - 1].isalnum():
                continue
            candidates.append((start, -end, tid))
        candidates.sort()
        out: list[GazetteerMatch] = []
        last_end = 0
        for start, neg_end, tid in candidates:
            end = -neg_end
            if start < last_end:
                continue
            last_end = end
            if mapping is None:
                out.append(GazetteerMatch(start, end, terms[tid]))
            else:
                out.append(GazetteerMatch(mapping[start], mapping[end - 1] + 1, terms[tid]))
        return out

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Pickle the automaton (terms are not saved: they come from the index)."""
        p = Path(path)
        with open(p, "wb") as fh:
            pickle.dump(self._automaton, fh, protocol=pickle.HIGHEST_PROTOCOL)
        return p

    @classmethod
    def load(cls, path: str | os.PathLike[str], terms: Sequence[str]) -> Gazetteer:
        """Load an automaton saved by :meth:`save`; ``terms`` must be the same list.

        Only load files you wrote yourself: this unpickles.
        """
        with open(path, "rb") as fh:
            automaton = pickle.load(fh)
        return cls(terms, automaton)
