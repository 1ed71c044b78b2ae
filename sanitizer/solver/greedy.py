"""Greedy weighted hitting set: the fallback when CP-SAT finds nothing in time.

It is also the hint CP-SAT starts from, so the exact solver never begins from
nothing and never does worse than this cover.

The classic rule (Chvátal 1979): repeatedly mask the entity that breaks the most
still-unbroken combinations per unit of cost, then undo masks that turned out to be
redundant (most expensive first). Both steps keep every combination broken, so the
result is always a valid masking, within a factor H(max arity) of the optimum.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence


def greedy_cover(
    n_variables: int, constraints: Sequence[tuple[int, ...]], costs: Sequence[int]
) -> list[int]:
    """Variables to set so that every constraint has one; sorted, deterministic.

    ``costs`` must be positive (the problem adds 1 per mask, so they are). Ties in the
    ratio go to the lower variable index, i.e. the canonical entity order.
    """
    touching: list[list[int]] = [[] for _ in range(n_variables)]
    for c, members in enumerate(constraints):
        for v in members:
            touching[v].append(c)
    open_count = [len(cs) for cs in touching]
    broken = [False] * len(constraints)
    remaining = len(constraints)
    # Max-heap on count/cost via negated ratios; stale entries are re-pushed lazily.
    heap = [(-open_count[v] / costs[v], v) for v in range(n_variables) if open_count[v]]
    heapq.heapify(heap)
    chosen: set[int] = set()
    while remaining and heap:
        ratio, v = heapq.heappop(heap)
        current = -open_count[v] / costs[v]
        if v in chosen or open_count[v] == 0:
            continue
        if current != ratio:
            heapq.heappush(heap, (current, v))
            continue
        chosen.add(v)
        for c in touching[v]:
            if not broken[c]:
                broken[c] = True
                remaining -= 1
                for u in constraints[c]:
                    open_count[u] -= 1
    if remaining:  # cannot happen: every constraint has a member with a positive count
        raise AssertionError("greedy cover left constraints unbroken")
    return _drop_redundant(chosen, touching, constraints, costs)


def _drop_redundant(
    chosen: set[int],
    touching: Sequence[Sequence[int]],
    constraints: Sequence[tuple[int, ...]],
    costs: Sequence[int],
) -> list[int]:
    """Unmask chosen variables whose every constraint is also broken by another mask."""
    hits = [sum(1 for u in members if u in chosen) for members in constraints]
    for v in sorted(chosen, key=lambda v: (-costs[v], -v)):
        if all(hits[c] > 1 for c in touching[v]):
            chosen.discard(v)
            for c in touching[v]:
                hits[c] -= 1
    return sorted(chosen)
