"""Operations on half-open character intervals ``(start, end)``, written once.

An interval covers ``text[start:end]``. Two intervals *overlap* when they share a
character and *touch* when one ends where the other starts; merging fuses both
(overlapping or touching intervals cover one unbroken stretch of characters).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

Interval = tuple[int, int]


def merge_intervals(intervals: Iterable[Sequence[int]], *, touching: bool = True) -> list[Interval]:
    """Sorted union of half-open intervals: overlapping ones merge.

    With ``touching`` (the default) intervals that only touch merge too, giving the
    stretches of covered characters; without it the result is the overlap components
    (agreement units: "[0, 3)" and "[3, 6)" stay two units). Empty or reversed intervals
    (``end <= start``) cover nothing and are dropped.
    """
    merged: list[Interval] = []
    for start, end in sorted((int(i[0]), int(i[1])) for i in intervals):
        if end <= start:
            continue
        if merged and (start < merged[-1][1] or (touching and start == merged[-1][1])):
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def overlaps(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether two half-open intervals share at least one character."""
    return a[0] < b[1] and b[0] < a[1]


def coverage_mask(length: int, intervals: Iterable[Sequence[int]]) -> npt.NDArray[np.bool_]:
    """Boolean array over ``length`` characters, True inside any of ``intervals``."""
    arr = np.zeros(length, dtype=bool)
    for start, end in intervals:
        arr[start:end] = True
    return arr


def mask_runs(mask: npt.NDArray[np.bool_]) -> list[Interval]:
    """Maximal runs of True in a boolean array, as sorted disjoint intervals.

    Overlapping or touching intervals painted into one mask come back merged, so that
    no character is counted twice.
    """
    if mask.size == 0:
        return []
    padded = np.concatenate(([False], mask, [False]))
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return [(int(edges[i]), int(edges[i + 1])) for i in range(0, len(edges), 2)]
