"""Gazetteer: finds occurrences of index terms in a document.

The shared Aho-Corasick matcher (:class:`sanitizer.textmatch.PhraseMatcher`) over
every normalised index term scans the document once. Matching is case-insensitive
and whitespace-insensitive (the document is folded with the same character folding
as index terms and its whitespace runs collapsed, keeping a map back to original
offsets), only accepts matches on token boundaries (the matcher's ``"edges"`` rule:
a match may not cut a word in two), and keeps the leftmost-longest non-overlapping
matches.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sanitizer.kanon.variants import fold_chars, normalize
from sanitizer.textmatch import PhraseMatcher, leftmost_longest

_WS_RUN = re.compile(r"\s+")
_NEEDS_COLLAPSE = re.compile(r"[^\S ]|  ")
# Index terms are whole normalised phrases; a term may start or end with punctuation
# ("-born"), which may then touch a word. Pickled automata of existing knowledge bases
# store term positions, which is what the matcher stores.
BOUNDARY = "edges"


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

    def __init__(self, terms: Sequence[str], matcher: PhraseMatcher) -> None:
        self.terms = terms
        self._matcher = matcher

    @classmethod
    def from_terms(cls, terms: Sequence[str]) -> Gazetteer:
        """Build the automaton; ``terms`` must already be normalised (as index terms are).

        Values stored are positions in ``terms``, so the list is kept, not copied.
        """
        return cls(terms, PhraseMatcher.build(terms, boundary=BOUNDARY))

    @classmethod
    def from_strings(cls, strings: Iterable[str]) -> Gazetteer:
        """Build from raw strings (normalised and de-duplicated here)."""
        return cls.from_terms(sorted({normalize(s) for s in strings} - {""}))

    def find(self, text: str) -> list[GazetteerMatch]:
        """Leftmost-longest, non-overlapping term occurrences on token boundaries."""
        if not text:
            return []
        norm, mapping = normalize_text(text)
        terms = self.terms
        out: list[GazetteerMatch] = []
        for start, end, tid in leftmost_longest(self._matcher.find(norm)):
            if mapping is None:
                out.append(GazetteerMatch(start, end, terms[tid]))
            else:
                out.append(GazetteerMatch(mapping[start], mapping[end - 1] + 1, terms[tid]))
        return out

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Pickle the automaton (terms are not saved: they come from the index)."""
        return self._matcher.save(path)

    @classmethod
    def load(cls, path: str | os.PathLike[str], terms: Sequence[str]) -> Gazetteer:
        """Load an automaton saved by :meth:`save`; ``terms`` must be the same list.

        Only load files you wrote yourself: this unpickles.
        """
        return cls(terms, PhraseMatcher.load(path, terms, boundary=BOUNDARY))
