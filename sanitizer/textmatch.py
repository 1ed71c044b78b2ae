"""One Aho-Corasick phrase matcher (pyahocorasick) for every word list of the library.

:class:`PhraseMatcher` finds every occurrence of a fixed list of keys in one pass over a
text. Keys and text must already be normalised the same way by the caller (lower-cased,
character-folded...), with offsets the caller can map back to the original text:
:func:`lower_same_length` lower-cases without moving any offset. A match is reported as
``(start, end, key_index)``, ``key_index`` being the key's position in the matcher's
list, so callers keep whatever they attach to a key in a parallel list.

Word-boundary rule, chosen per matcher (``boundary=``), with "word character" meaning
``str.isalnum()`` (a letter or a digit of any script):

``"strict"``
    No word character immediately before the match or immediately after it. "Paris"
    matches in "(Paris)" and "Paris-born", not in "Parisian" or "2Paris".
``"edges"``
    A match is rejected only where it would cut a word in two: the character outside
    the match *and* the match's own character at that edge are both word characters.
    Same as ``"strict"`` for keys that start and end with a word character; a key that
    starts or ends with punctuation or a space (``"-born"``, ``"(x)"``) may touch a word.

Matches overlap; :func:`longest_first` and :func:`leftmost_longest` keep a
non-overlapping subset under the two rules the library uses.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import ahocorasick

BOUNDARY_RULES: tuple[str, ...] = ("strict", "edges")

Match = tuple[int, int, int]
"""``(start, end, key_index)``: ``haystack[start:end] == keys[key_index]``."""

T = TypeVar("T")


def lower_same_length(text: str) -> str:
    """``text`` lower-cased without changing any offset.

    The rare characters whose lower case is longer than one character (e.g. "İ") are kept
    as they are, so offsets into the result are offsets into ``text``.
    """
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _on_strict_boundary(haystack: str, start: int, end: int) -> bool:
    return (start == 0 or not haystack[start - 1].isalnum()) and (
        end == len(haystack) or not haystack[end].isalnum()
    )


def _on_edge_boundary(haystack: str, start: int, end: int) -> bool:
    if start > 0 and haystack[start - 1].isalnum() and haystack[start].isalnum():
        return False
    return not (end < len(haystack) and haystack[end].isalnum() and haystack[end - 1].isalnum())


_BOUNDARY_CHECKS = {"strict": _on_strict_boundary, "edges": _on_edge_boundary}


class PhraseMatcher:
    """Every occurrence of a fixed list of keys, on word boundaries (see the module doc)."""

    def __init__(
        self, keys: Sequence[str], automaton: ahocorasick.Automaton, boundary: str = "strict"
    ) -> None:
        if boundary not in _BOUNDARY_CHECKS:
            raise ValueError(f"unknown boundary rule {boundary!r} (known: {BOUNDARY_RULES})")
        self.keys = keys
        self.boundary = boundary
        self._automaton = automaton
        self._on_boundary = _BOUNDARY_CHECKS[boundary]

    @classmethod
    def build(cls, keys: Sequence[str], boundary: str = "strict") -> PhraseMatcher:
        """Build the automaton over ``keys`` (empty keys are skipped).

        The automaton stores positions in ``keys``, so the sequence is kept, not copied.
        """
        automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        for i, key in enumerate(keys):
            if key:
                automaton.add_word(key, i)
        automaton.make_automaton()
        return cls(keys, automaton, boundary)

    def find(self, haystack: str) -> Iterator[Match]:
        """Every key occurrence in ``haystack`` on a word boundary, ordered by end offset."""
        if self._automaton.kind != ahocorasick.AHOCORASICK or not haystack:
            return
        keys = self.keys
        on_boundary = self._on_boundary
        for end_index, key_index in self._automaton.iter(haystack):
            end = end_index + 1
            start = end - len(keys[key_index])
            if on_boundary(haystack, start, end):
                yield start, end, key_index

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Pickle the automaton (the keys are not saved: the caller keeps them)."""
        p = Path(path)
        with open(p, "wb") as fh:
            pickle.dump(self._automaton, fh, protocol=pickle.HIGHEST_PROTOCOL)
        return p

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], keys: Sequence[str], boundary: str = "strict"
    ) -> PhraseMatcher:
        """Load an automaton saved by :meth:`save`; ``keys`` must be the same list.

        Only load files you wrote yourself: this unpickles.
        """
        with open(path, "rb") as fh:
            automaton = pickle.load(fh)
        return cls(keys, automaton, boundary)


def longest_first(candidates: Iterable[tuple[int, int, T]]) -> list[tuple[int, int, T]]:
    """Non-overlapping candidates, longest first (then leftmost), returned in text order.

    A long match anywhere beats every shorter match it overlaps ("New York City" over
    "York"), whatever their positions.
    """
    ordered = sorted(candidates, key=lambda c: (-(c[1] - c[0]), c[0]))
    taken: list[tuple[int, int, T]] = []
    occupied: set[int] = set()
    for start, end, value in ordered:
        if occupied.isdisjoint(range(start, end)):
            taken.append((start, end, value))
            occupied.update(range(start, end))
    taken.sort(key=lambda c: c[0])
    return taken


def leftmost_longest(candidates: Iterable[tuple[int, int, T]]) -> list[tuple[int, int, T]]:
    """Non-overlapping candidates scanning left to right, the longest at each start.

    A match that starts earlier wins over a longer one starting inside it.
    """
    taken: list[tuple[int, int, T]] = []
    last_end = 0
    for start, end, value in sorted(candidates, key=lambda c: (c[0], -c[1])):
        if start >= last_end:
            taken.append((start, end, value))
            last_end = end
    return taken
