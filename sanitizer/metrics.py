"""Precision, recall and F1 from counts, written once for every evaluation in the library.

Conventions (the ones every caller used before they shared this module):

* a ratio with a zero denominator is ``0.0`` (scikit-learn's ``zero_division=0``), so an
  empty prediction has precision 0 rather than an undefined one;
* F1 is the harmonic mean of precision and recall, ``0.0`` when both are 0.

Agreement reports need "undefined" to stay visible instead, hence :func:`defined_ratio`.
"""

from __future__ import annotations

from dataclasses import dataclass


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, or 0.0 when the denominator is 0."""
    return numerator / denominator if denominator else 0.0


def defined_ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``, or None when the denominator is 0 (undefined)."""
    return numerator / denominator if denominator else None


def harmonic_mean(precision: float, recall: float) -> float:
    """F1 of a precision and a recall: their harmonic mean, 0.0 when both are 0."""
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


@dataclass(frozen=True)
class Prf:
    """Precision, recall and F1."""

    precision: float
    recall: float
    f1: float

    @classmethod
    def from_ratios(cls, precision: float, recall: float) -> Prf:
        """Precision and recall with their F1."""
        return cls(precision, recall, harmonic_mean(precision, recall))

    @classmethod
    def from_counts(cls, correct: float, predicted: float, gold: float) -> Prf:
        """P = correct / predicted, R = correct / gold (0.0 for an empty side), and F1.

        ``correct`` may be fractional (e.g. half credit for partial matches).
        """
        return cls.from_ratios(ratio(correct, predicted), ratio(correct, gold))
