"""Entity-level precision/recall/F1 of SemEval-2013 task 9 (Segura-Bedmar et al.).

Each gold span is paired with at most one predicted span and vice versa; the
pairing maximises, in this order of priority, exact boundary + type matches,
exact boundary matches, overlapping same-type matches, any overlap, then the
overlap length (solved as an assignment problem with SciPy). Each pair and each
unpaired span is then classified under the four schemes of the task:

============================  ========  =======  =======  =======
case                          strict    exact    partial  type
============================  ========  =======  =======  =======
same boundaries, same type    COR       COR      COR      COR
same boundaries, other type   INC       COR      COR      INC
overlap, same type            INC       INC      PAR      COR
overlap, other type           INC       INC      PAR      INC
prediction not paired         SPU       SPU      SPU      SPU
gold not paired               MIS       MIS      MIS      MIS
============================  ========  =======  =======  =======

With ``POS = COR + INC + PAR + MIS`` (gold spans) and ``ACT = COR + INC + PAR +
SPU`` (predicted spans): ``P = COR / ACT`` and ``R = COR / POS`` for *strict* and
*exact*; ``P = (COR + 0.5 PAR) / ACT`` and ``R = (COR + 0.5 PAR) / POS`` for
*partial* and *type*. Seed 000 reports *exact* and *partial*. Without labels
(``use_labels=False`` or unlabeled spans), strict equals exact and type equals
partial. Ratios with a zero denominator are 0.0.

The one-to-one pairing is a choice: a gold span covered by two predictions
("SEK 147,000 (approximately 15,800 euros)" vs "SEK 147,000" + "15,800 euros")
gets one PAR and one SPU, rather than two PARs as in greedy implementations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from sanitizer.evaluation.spans import LabeledSpan, SpanLike, to_labeled_span
from sanitizer.metrics import harmonic_mean, ratio

SCHEMES: tuple[str, ...] = ("strict", "exact", "partial", "type")


@dataclass
class SchemeScore:
    """Counts and scores of one SemEval matching scheme."""

    correct: int = 0
    incorrect: int = 0
    partial: int = 0
    missed: int = 0
    spurious: int = 0

    @property
    def possible(self) -> int:
        """POS: number of gold spans."""
        return self.correct + self.incorrect + self.partial + self.missed

    @property
    def actual(self) -> int:
        """ACT: number of predicted spans."""
        return self.correct + self.incorrect + self.partial + self.spurious

    def _credit(self, half_partial: bool) -> float:
        return self.correct + (0.5 * self.partial if half_partial else 0.0)

    def precision(self, half_partial: bool) -> float:
        """Precision; ``half_partial`` gives PAR half credit (partial/type schemes)."""
        return ratio(self._credit(half_partial), self.actual)

    def recall(self, half_partial: bool) -> float:
        """Recall; ``half_partial`` gives PAR half credit (partial/type schemes)."""
        return ratio(self._credit(half_partial), self.possible)


@dataclass
class SemEvalResult:
    """Per-scheme counts, precision, recall and F1."""

    counts: dict[str, SchemeScore] = field(
        default_factory=lambda: {s: SchemeScore() for s in SCHEMES}
    )

    def precision(self, scheme: str) -> float:
        """Precision under ``scheme`` (one of :data:`SCHEMES`)."""
        return self.counts[scheme].precision(scheme in ("partial", "type"))

    def recall(self, scheme: str) -> float:
        """Recall under ``scheme``."""
        return self.counts[scheme].recall(scheme in ("partial", "type"))

    def f1(self, scheme: str) -> float:
        """Harmonic mean of :meth:`precision` and :meth:`recall` under ``scheme``."""
        return harmonic_mean(self.precision(scheme), self.recall(scheme))

    def to_dict(self) -> dict[str, dict[str, float | int]]:
        """``{scheme: {precision, recall, f1, correct, incorrect, partial, missed, spurious,
        possible, actual}}``."""
        out: dict[str, dict[str, float | int]] = {}
        for s in SCHEMES:
            k = self.counts[s]
            out[s] = {
                "precision": self.precision(s),
                "recall": self.recall(s),
                "f1": self.f1(s),
                "correct": k.correct,
                "incorrect": k.incorrect,
                "partial": k.partial,
                "missed": k.missed,
                "spurious": k.spurious,
                "possible": k.possible,
                "actual": k.actual,
            }
        return out


def _pair(
    gold: Sequence[LabeledSpan], pred: Sequence[LabeledSpan], use_labels: bool
) -> list[tuple[int, int]]:
    """Optimal one-to-one pairing of overlapping gold/pred spans (indices)."""
    if not gold or not pred:
        return []
    score = np.zeros((len(gold), len(pred)))
    for i, g in enumerate(gold):
        for j, p in enumerate(pred):
            overlap = min(g.end, p.end) - max(g.start, p.start)
            if overlap <= 0:
                continue
            exact = g.start == p.start and g.end == p.end
            same = _same_type(g, p, use_labels)
            # Tiers dominate any overlap length (bounded by the longer span < 1e6).
            tier = 8 * exact + 4 * (exact and same) + 2 * same + 1
            score[i, j] = tier * 1e6 + overlap / max(g.end - g.start, p.end - p.start)
    rows, cols = linear_sum_assignment(score, maximize=True)
    return [(int(i), int(j)) for i, j in zip(rows, cols, strict=True) if score[i, j] > 0]


def _same_type(g: LabeledSpan, p: LabeledSpan, use_labels: bool) -> bool:
    return not use_labels or g.label is None or p.label is None or g.label == p.label


def _score_document(
    gold: Sequence[LabeledSpan], pred: Sequence[LabeledSpan], use_labels: bool, res: SemEvalResult
) -> None:
    """Add one document's classification to ``res`` (mutates ``res``)."""
    pairs = _pair(gold, pred, use_labels)
    k = res.counts
    for i, j in pairs:
        g, p = gold[i], pred[j]
        exact = g.start == p.start and g.end == p.end
        same = _same_type(g, p, use_labels)
        if exact:
            if same:
                for s in SCHEMES:
                    k[s].correct += 1
            else:
                k["strict"].incorrect += 1
                k["exact"].correct += 1
                k["partial"].correct += 1
                k["type"].incorrect += 1
        else:
            k["strict"].incorrect += 1
            k["exact"].incorrect += 1
            k["partial"].partial += 1
            if same:
                k["type"].correct += 1
            else:
                k["type"].incorrect += 1
    for s in SCHEMES:
        k[s].missed += len(gold) - len(pairs)
        k[s].spurious += len(pred) - len(pairs)


def semeval_scores(
    gold: Mapping[str, Sequence[SpanLike]] | Sequence[SpanLike],
    pred: Mapping[str, Sequence[SpanLike]] | Sequence[SpanLike],
    use_labels: bool = True,
) -> SemEvalResult:
    """SemEval-2013 task 9 scores of ``pred`` against ``gold``.

    Both are either ``{doc_id: [span, ...]}`` (a document missing on one side
    has no spans there) or a single document's list of spans. Spans are
    ``[start, end]``, ``[start, end, label]``, dicts or :class:`EntitySpan`;
    duplicates on one side are kept (each must be matched).
    """
    gold_docs = _as_documents(gold)
    pred_docs = _as_documents(pred)
    res = SemEvalResult()
    for doc_id in sorted(set(gold_docs) | set(pred_docs)):
        _score_document(gold_docs.get(doc_id, []), pred_docs.get(doc_id, []), use_labels, res)
    return res


def _as_documents(
    spans: Mapping[str, Sequence[SpanLike]] | Sequence[SpanLike],
) -> dict[str, list[LabeledSpan]]:
    if isinstance(spans, Mapping):
        return {str(k): [to_labeled_span(s) for s in v] for k, v in spans.items()}
    return {"": [to_labeled_span(s) for s in spans]}
