"""Token-level precision/recall/F1 per semantic category (seed 001, Table 2).

Every ``\\w+`` token of a text gets a gold and a predicted label: the label of
the longest span of that side overlapping the token (``"O"`` when none does).
Per-category scores are then scikit-learn's ``precision_recall_fscore_support``
over those token labels. Labels listed together in ``equivalent_labels`` count
as the same category (seed 001 treats ORG and LOC as interchangeable, see
:data:`TAB_INTERCHANGEABLE`): a predicted label equivalent to the gold label of
the token is replaced by it before scoring.

Besides the per-category scores, ``micro`` is the micro-average over the
categories and ``untyped`` scores detection alone (token inside any span or not).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.metrics import precision_recall_fscore_support

from sanitizer.evaluation.spans import LabeledSpan, SpanLike, to_labeled_span, word_tokens

OUTSIDE = "O"
TAB_INTERCHANGEABLE: tuple[frozenset[str], ...] = (frozenset({"ORG", "LOC"}),)


@dataclass(frozen=True)
class PRF:
    """Precision, recall, F1 and support (number of gold tokens)."""

    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class TokenScores:
    """Per-category, micro-averaged and label-agnostic token-level scores."""

    by_label: dict[str, PRF]
    micro: PRF
    untyped: PRF

    def to_dict(self) -> dict[str, dict[str, float | int]]:
        """``{label | "micro" | "untyped": {precision, recall, f1, support}}``."""
        out = {k: vars(v).copy() for k, v in self.by_label.items()}
        out["micro"] = vars(self.micro).copy()
        out["untyped"] = vars(self.untyped).copy()
        return out


def token_labels(
    text: str, spans: Sequence[SpanLike], tokens: Sequence[tuple[int, int]] | None = None
) -> list[str]:
    """Label of each token of ``text`` (default: its ``\\w+`` tokens) from ``spans``.

    A token takes the label of the longest span overlapping it; unlabeled spans
    give the label ``"SPAN"``; tokens outside every span get ``"O"``.
    """
    toks = word_tokens(text) if tokens is None else list(tokens)
    parsed: list[LabeledSpan] = [to_labeled_span(s) for s in spans]
    if not parsed:
        return [OUTSIDE] * len(toks)
    # Paint shorter spans first so that longer spans win the characters they share.
    order = sorted(range(len(parsed)), key=lambda i: parsed[i].end - parsed[i].start)
    owner = np.full(len(text), -1, dtype=np.int64)
    for i in order:
        s = parsed[i]
        if s.end > len(text):
            raise ValueError(f"span {s.start}..{s.end} beyond the text end ({len(text)})")
        owner[s.start : s.end] = i
    labels: list[str] = []
    for ts, te in toks:
        ids = {int(i) for i in owner[ts:te] if i >= 0}
        if not ids:
            labels.append(OUTSIDE)
            continue
        best = max(ids, key=lambda i: (parsed[i].end - parsed[i].start, -i))
        labels.append(parsed[best].label or "SPAN")
    return labels


def _unify(gold: str, pred: str, groups: Sequence[Collection[str]]) -> str:
    if pred != gold and any(pred in g and gold in g for g in groups):
        return gold
    return pred


def token_scores_by_type(
    texts: Mapping[str, str] | str,
    gold: Mapping[str, Sequence[SpanLike]] | Sequence[SpanLike],
    pred: Mapping[str, Sequence[SpanLike]] | Sequence[SpanLike],
    labels: Sequence[str] | None = None,
    equivalent_labels: Sequence[Collection[str]] = (),
) -> TokenScores:
    """Token-level P/R/F1 per category of ``pred`` against ``gold``.

    ``texts`` is ``{doc_id: text}`` with ``gold``/``pred`` as ``{doc_id: spans}``,
    or one text with two span lists. ``labels`` fixes the categories reported
    (default: every label seen on either side). Scores with a zero denominator
    are 0.0 (scikit-learn's ``zero_division=0``).
    """
    if isinstance(texts, str):
        if isinstance(gold, Mapping) or isinstance(pred, Mapping):
            raise ValueError("with a single text, gold and pred must be span lists")
        docs: Mapping[str, str] = {"": texts}
        gold_by_doc: Mapping[str, Sequence[SpanLike]] = {"": gold}
        pred_by_doc: Mapping[str, Sequence[SpanLike]] = {"": pred}
    else:
        if not isinstance(gold, Mapping) or not isinstance(pred, Mapping):
            raise ValueError("with several texts, gold and pred must map doc ids to spans")
        docs, gold_by_doc, pred_by_doc = texts, gold, pred
    unknown = sorted((set(gold_by_doc) | set(pred_by_doc)) - set(docs))
    if unknown:
        raise ValueError(f"spans for documents without text: {unknown[:5]}")

    y_true: list[str] = []
    y_pred: list[str] = []
    for doc_id, text in docs.items():
        toks = word_tokens(text)
        g = token_labels(text, gold_by_doc.get(doc_id, []), toks)
        p = token_labels(text, pred_by_doc.get(doc_id, []), toks)
        y_true.extend(g)
        y_pred.extend(_unify(gl, pl, equivalent_labels) for gl, pl in zip(g, p, strict=True))

    if labels is None:
        labels = sorted((set(y_true) | set(y_pred)) - {OUTSIDE})
    by_label: dict[str, PRF] = {}
    micro = PRF(0.0, 0.0, 0.0, 0)
    if labels:
        p_arr, r_arr, f_arr, s_arr = precision_recall_fscore_support(
            y_true, y_pred, labels=list(labels), average=None, zero_division=0
        )
        for i, lab in enumerate(labels):
            by_label[lab] = PRF(float(p_arr[i]), float(r_arr[i]), float(f_arr[i]), int(s_arr[i]))
        mp, mr, mf, _ = precision_recall_fscore_support(
            y_true, y_pred, labels=list(labels), average="micro", zero_division=0
        )
        micro = PRF(float(mp), float(mr), float(mf), int(sum(s_arr)))

    t_bin = [y != OUTSIDE for y in y_true]
    p_bin = [y != OUTSIDE for y in y_pred]
    if any(t_bin) or any(p_bin):
        up, ur, uf, _ = precision_recall_fscore_support(
            t_bin, p_bin, average="binary", pos_label=True, zero_division=0
        )
        untyped = PRF(float(up), float(ur), float(uf), sum(t_bin))
    else:
        untyped = PRF(0.0, 0.0, 0.0, 0)
    return TokenScores(by_label, micro, untyped)


def gold_spans_from_tab(
    doc: Mapping[str, Any],
    annotator: str | None = None,
    identifier_types: Collection[str] = ("DIRECT", "QUASI", "NO_MASK"),
) -> list[LabeledSpan]:
    """Typed spans of one annotator of a TAB document (default: the first listed).

    Seed 001 evaluates detection against all annotated mentions (``NO_MASK``
    included), hence the default ``identifier_types``.
    """
    annotations = doc.get("annotations") or {}
    if not annotations:
        return []
    name = annotator if annotator is not None else next(iter(annotations))
    return [
        LabeledSpan(int(m["start_offset"]), int(m["end_offset"]), m.get("entity_type"))
        for m in annotations[name].get("entity_mentions", [])
        if m.get("identifier_type") in identifier_types
    ]
