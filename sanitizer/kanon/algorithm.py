"""Algorithm 1 of seed 000: which terms of a document to mask for k-anonymity.

Given the terms found in a document and the posting lists of the knowledge base,
a combination of terms (up to ``max_arity`` terms) breaks k-anonymity when
between 1 and k-1 persons share all of them; one of its terms is then masked,
chosen by a registered selection function (``greedy``: the term with the shorter
posting list; ``random``: a seeded random choice). After the call, every
combination of up to ``max_arity`` unmasked terms is shared by at least k
persons or by none.

The paper restarts the scan after each masking; scanning on instead is
equivalent (combinations already checked do not change when a term is masked,
and those holding the masked term are skipped) and avoids quadratic rescans.
Pruning: a combination whose prefix is shared by nobody is shared by nobody;
intersections of safe combinations are cached to extend them by one term.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Protocol

from pyroaring import BitMap

from sanitizer.registry import Registry


class PostingSource(Protocol):
    """Anything that maps a term to its posting list (an :class:`InvertedIndex` does)."""

    def postings(self, term: str) -> BitMap: ...


class _MappingSource:
    def __init__(self, mapping: Mapping[str, Iterable[int]]) -> None:
        self._m = {t: v if isinstance(v, BitMap) else BitMap(v) for t, v in mapping.items()}

    def postings(self, term: str) -> BitMap:
        return self._m.get(term, BitMap())


SelectionFunction = Callable[[Sequence[str], Sequence[int], random.Random], str]
"""``(candidate terms, their posting-list sizes, rng) -> term to mask``."""

selection_functions: Registry[SelectionFunction] = Registry("selection function")


@selection_functions.register("greedy")
def greedy_select(terms: Sequence[str], sizes: Sequence[int], rng: random.Random) -> str:
    """The most specific term: shortest posting list (ties: first in the given order)."""
    best = min(range(len(terms)), key=lambda i: sizes[i])
    return terms[best]


@selection_functions.register("random")
def random_select(terms: Sequence[str], sizes: Sequence[int], rng: random.Random) -> str:
    """A random term of the combination (reproducible through ``rng``)."""
    return terms[rng.randrange(len(terms))]


@dataclass(frozen=True, slots=True)
class MaskDecision:
    """Why ``term`` is masked: ``combination`` is shared by only ``count`` persons."""

    term: str
    combination: tuple[str, ...]
    count: int

    def explain(self) -> str:
        """Human-readable explanation, e.g. ``"lisbon + freamunde → 1 person"``."""
        unit = "person" if self.count == 1 else "persons"
        return f"{' + '.join(self.combination)} → {self.count} {unit}"


@dataclass
class MaskingResult:
    """Output of :func:`terms_to_mask`."""

    masked: list[str] = field(default_factory=list)
    decisions: dict[str, MaskDecision] = field(default_factory=dict)
    # Breaches made only of always-known facts: nothing in the text can fix them.
    unresolved: list[tuple[tuple[str, ...], int]] = field(default_factory=list)
    checked: int = 0


def terms_to_mask(
    terms: Iterable[str],
    postings: PostingSource | Mapping[str, Iterable[int]],
    k: int = 5,
    max_arity: int = 3,
    selection: str | SelectionFunction = "greedy",
    seed: int | None = 0,
    known_terms: Iterable[str] = (),
) -> MaskingResult:
    """Run Algorithm 1 on the distinct ``terms`` found in a document.

    ``known_terms`` are facts the adversary is assumed to know anyway (they join
    combinations but are never masked). Terms shared by nobody are ignored: they
    cannot single anyone out. Combinations are enumerated by arity, terms ordered
    by (posting-list size, term) so results are deterministic.
    """
    if k < 1:
        raise ValueError("k must be ≥ 1")
    source: PostingSource = _MappingSource(postings) if isinstance(postings, Mapping) else postings
    select = selection_functions.get(selection) if isinstance(selection, str) else selection
    rng = random.Random(seed)
    known = set(known_terms)
    maskable = set(terms) - known
    bitmaps: dict[str, BitMap] = {t: source.postings(t) for t in maskable | known}
    size = {t: len(b) for t, b in bitmaps.items()}
    result = MaskingResult()
    masked: set[str] = set()

    for t in sorted(bitmaps, key=lambda t: (size[t], t)):
        if 1 <= size[t] < k:
            result.checked += 1
            if t in known:
                result.unresolved.append(((t,), size[t]))
            else:
                masked.add(t)
                result.masked.append(t)
                result.decisions[t] = MaskDecision(t, (t,), size[t])

    active = sorted(
        (t for t in bitmaps if size[t] > 0 and t not in masked), key=lambda t: (size[t], t)
    )
    # Intersections of combinations shared by ≥ k persons, kept to extend them by one term.
    safe: dict[tuple[str, ...], BitMap] = {(t,): bitmaps[t] for t in active}
    for arity in range(2, max_arity + 1):
        if sum(1 for t in active if t not in masked) < arity or not (maskable - masked):
            break
        for combo in combinations(active, arity):
            if any(t in masked for t in combo):
                continue
            base = safe.get(combo[:-1])
            if base is None:  # the prefix is shared by nobody, so is the combination
                continue
            last = bitmaps[combo[-1]]
            result.checked += 1
            if arity < max_arity:
                inter = base & last
                count = len(inter)
            else:
                count = base.intersection_cardinality(last)
            if count >= k:
                if arity < max_arity:
                    safe[combo] = inter
                continue
            if count == 0:
                continue
            candidates = [t for t in combo if t not in known]
            if not candidates:
                result.unresolved.append((combo, count))
                continue
            chosen = select(candidates, [size[t] for t in candidates], rng)
            masked.add(chosen)
            result.masked.append(chosen)
            result.decisions[chosen] = MaskDecision(chosen, combo, count)
            if not (maskable - masked):
                break
        # Cached intersections of the previous arity are only needed one level up.
        safe = {c: b for c, b in safe.items() if len(c) == arity and not masked.intersection(c)}
    return result
