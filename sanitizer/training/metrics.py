"""Cheap dev-set metrics for token taggers: token-level and entity-level P/R/F1.

Token metrics are micro-averaged over the span labels (``O`` excluded, ``B-``/``I-``
merged, so a token counts as correct when its label type is right). Entity metrics
follow SemEval-2013 task 9 in spirit: *exact* requires identical boundaries and label;
*partial* requires an overlap and the same label (precision over predicted spans,
recall over gold spans). The full TAB evaluation lives in ``sanitizer.evaluation``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sklearn.metrics import precision_recall_fscore_support

from sanitizer.intervals import overlaps
from sanitizer.metrics import Prf, ratio
from sanitizer.training.config import OUTSIDE_TAG
from sanitizer.types import EntitySpan


def token_prf(
    gold_tags: Sequence[str], pred_tags: Sequence[str], labels: Sequence[str]
) -> dict[str, float]:
    """Micro P/R/F1 over tokens whose gold or predicted type is one of ``labels``."""
    if len(gold_tags) != len(pred_tags):
        raise ValueError("gold and predicted tag sequences differ in length")

    def kind(tag: str) -> str:
        return OUTSIDE_TAG if tag == OUTSIDE_TAG else tag[2:]

    gold = [kind(t) for t in gold_tags]
    pred = [kind(t) for t in pred_tags]
    if not gold:
        return {"token_precision": 0.0, "token_recall": 0.0, "token_f1": 0.0}
    p, r, f, _ = precision_recall_fscore_support(
        gold, pred, labels=list(labels), average="micro", zero_division=0
    )
    return {"token_precision": float(p), "token_recall": float(r), "token_f1": float(f)}


def entity_prf(
    gold: Sequence[Sequence[EntitySpan]], pred: Sequence[Sequence[EntitySpan]]
) -> dict[str, float]:
    """Exact and partial entity P/R/F1 summed over documents (``gold[i]`` vs ``pred[i]``)."""
    if len(gold) != len(pred):
        raise ValueError("gold and predicted document counts differ")
    n_gold = n_pred = exact = pred_overlapping = gold_overlapped = 0
    for gold_doc, pred_doc in zip(gold, pred, strict=True):
        n_gold += len(gold_doc)
        n_pred += len(pred_doc)
        gold_keys = {(s.start, s.end, s.label) for s in gold_doc}
        exact += sum((s.start, s.end, s.label) in gold_keys for s in pred_doc)

        def same_label_overlap(a: EntitySpan, b: EntitySpan) -> bool:
            return a.label == b.label and overlaps((a.start, a.end), (b.start, b.end))

        pred_overlapping += sum(any(same_label_overlap(p, g) for g in gold_doc) for p in pred_doc)
        gold_overlapped += sum(any(same_label_overlap(g, p) for p in pred_doc) for g in gold_doc)
    exact_scores = Prf.from_counts(exact, n_pred, n_gold)
    # Partial precision and recall count different things (predictions touching a gold span,
    # gold spans touched by a prediction), so they are two ratios rather than one count.
    partial_scores = Prf.from_ratios(
        ratio(pred_overlapping, n_pred), ratio(gold_overlapped, n_gold)
    )
    return {
        "entity_exact_precision": exact_scores.precision,
        "entity_exact_recall": exact_scores.recall,
        "entity_exact_f1": exact_scores.f1,
        "entity_partial_precision": partial_scores.precision,
        "entity_partial_recall": partial_scores.recall,
        "entity_partial_f1": partial_scores.f1,
        "gold_entities": float(n_gold),
        "predicted_entities": float(n_pred),
    }
