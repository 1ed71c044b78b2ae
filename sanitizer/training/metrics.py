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

from sanitizer.training.config import OUTSIDE_TAG
from sanitizer.types import EntitySpan


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


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

        def overlaps(a: EntitySpan, b: EntitySpan) -> bool:
            return a.label == b.label and a.start < b.end and b.start < a.end

        pred_overlapping += sum(any(overlaps(p, g) for g in gold_doc) for p in pred_doc)
        gold_overlapped += sum(any(overlaps(g, p) for p in pred_doc) for g in gold_doc)
    ep = exact / n_pred if n_pred else 0.0
    er = exact / n_gold if n_gold else 0.0
    pp = pred_overlapping / n_pred if n_pred else 0.0
    pr = gold_overlapped / n_gold if n_gold else 0.0
    return {
        "entity_exact_precision": ep,
        "entity_exact_recall": er,
        "entity_exact_f1": _f1(ep, er),
        "entity_partial_precision": pp,
        "entity_partial_recall": pr,
        "entity_partial_f1": _f1(pp, pr),
        "gold_entities": float(n_gold),
        "predicted_entities": float(n_pred),
    }
