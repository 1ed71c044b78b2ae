"""Training the supervised risk model on human decisions (seed 001, §3.2.3).

The rows are the candidate entities (not DIRECT, not the person to protect: those are
masked whatever the model says) of the recognizer's output on annotated documents, each
labelled by :mod:`~sanitizer.risk.supervised.labels`; entities without a majority are left
out. The default model is scikit-learn's ``HistGradientBoostingClassifier`` over
:data:`~sanitizer.risk.supervised.features.FEATURES`: it trains in seconds on CPU.

Metrics are cross-validated by document (``GroupKFold``: no document is in both the
training and the scoring fold), so they say how the model does on documents it has not seen.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score, roc_auc_score
from sklearn.model_selection import GroupKFold

from sanitizer.risk import RiskDocument, RiskEntity
from sanitizer.risk.measures.common import candidates
from sanitizer.risk.pipeline import risk_document
from sanitizer.risk.supervised.features import FEATURES, CollectionFrequency, entity_features
from sanitizer.risk.supervised.labels import entity_labels
from sanitizer.risk.supervised.model import (
    DEFAULT_SUPERVISED_THRESHOLD,
    MODEL_VERSION,
    SupervisedRiskModel,
    package_version,
)
from sanitizer.risk.surprisal import DEFAULT_SCORER, make_scorer
from sanitizer.types import EntitySpan

MODEL_NAME = "hist-gradient-boosting"
DEFAULT_PARAMS: Mapping[str, Any] = {
    "learning_rate": 0.05,
    "max_iter": 200,
    "max_leaf_nodes": 15,
    "min_samples_leaf": 20,
    "l2_regularization": 1.0,
}
"""Small trees, strong regularisation: a few thousand rows from a few dozen documents."""


@dataclass(frozen=True)
class LabelledDocument:
    """A document, the recognizer's spans on it and the annotators' decisions (TAB)."""

    doc_id: str
    text: str
    spans: Sequence[EntitySpan]
    annotations: Mapping[str, Any]
    meta: Mapping[str, Any] | None = None


def labelled_documents(
    tab_documents: Sequence[Mapping[str, Any]], spans: Mapping[str, Sequence[EntitySpan]]
) -> list[LabelledDocument]:
    """TAB documents (``doc_id``, ``text``, ``annotations``, ``meta``) with their spans.

    Raises ``ValueError`` for a document without annotators: it has no decision to learn.
    """
    out: list[LabelledDocument] = []
    for doc in tab_documents:
        doc_id = str(doc["doc_id"])
        annotations = doc.get("annotations")
        if not isinstance(annotations, Mapping) or not annotations:
            raise ValueError(f"document {doc_id}: no TAB annotations to learn from")
        meta = doc.get("meta")
        out.append(
            LabelledDocument(
                doc_id,
                str(doc["text"]),
                spans[doc_id],
                annotations,
                meta if isinstance(meta, Mapping) else None,
            )
        )
    return out


@dataclass(frozen=True)
class Dataset:
    """Feature rows, labels (1 = MASK) and the document of each row (for grouped folds)."""

    X: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    left_out: int


def build_dataset(documents: Sequence[LabelledDocument], scorer: str = DEFAULT_SCORER) -> Dataset:
    """Rows for every labelled candidate entity; the documents are each other's collection."""
    pairs = [(d.doc_id, d.text) for d in documents]
    surprisal = make_scorer(scorer, pairs)
    collection = CollectionFrequency(pairs)
    rows: list[list[float]] = []
    labels: list[int] = []
    groups: list[str] = []
    examples, left_out = labelled_entities(documents)
    for document, entity, label in examples:
        rows.append(entity_features(document, entity, surprisal, collection))
        labels.append(label)
        groups.append(document.doc_id)
    X = np.asarray(rows, dtype=float).reshape(len(rows), len(FEATURES))
    return Dataset(X, np.asarray(labels, dtype=int), np.asarray(groups), left_out)


def labelled_entities(
    documents: Sequence[LabelledDocument],
) -> tuple[list[tuple[RiskDocument, RiskEntity, int]], int]:
    """``([(document, candidate entity, 1 = MASK / 0 = KEEP), ...], left out on a tie)``.

    Shared by every model kind, so they all learn the same decisions.
    """
    out: list[tuple[RiskDocument, RiskEntity, int]] = []
    left_out = 0
    for doc in documents:
        document = risk_document(doc.doc_id, doc.text, doc.spans, doc.meta)
        pool = candidates(document)
        decided = entity_labels(pool, doc.annotations)
        for entity in pool:
            label = decided[entity.entity_id]
            if label is None:
                left_out += 1
            else:
                out.append((document, entity, int(label)))
    return out, left_out


def mask_metrics(y: np.ndarray, scores: np.ndarray, threshold: float) -> dict[str, Any]:
    """ROC AUC, accuracy and precision/recall/F1 of the MASK class for p(mask) ``scores``."""
    predicted = (scores >= threshold).astype(int)
    both = len(set(y.tolist())) == 2
    return {
        "threshold": threshold,
        "roc_auc": round(float(roc_auc_score(y, scores)), 4) if both else None,
        "accuracy": round(float(accuracy_score(y, predicted)), 4),
        "precision_mask": round(float(precision_score(y, predicted, zero_division=0)), 4),
        "recall_mask": round(float(recall_score(y, predicted, zero_division=0)), 4),
        "f1_mask": round(float(f1_score(y, predicted, zero_division=0)), 4),
    }


def _estimator(params: Mapping[str, Any], seed: int) -> HistGradientBoostingClassifier:
    return HistGradientBoostingClassifier(**{**DEFAULT_PARAMS, **params}, random_state=seed)


def cross_validate(
    data: Dataset,
    *,
    folds: int = 5,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
    threshold: float = DEFAULT_SUPERVISED_THRESHOLD,
) -> dict[str, Any]:
    """Out-of-fold metrics of the MASK class, folds grouped by document."""
    n_docs = len(set(data.groups.tolist()))
    folds = min(folds, n_docs)
    if folds < 2 or len(set(data.y.tolist())) < 2:
        return {"folds": 0, "note": "too few documents or a single class: not cross-validated"}
    scores = np.zeros(len(data.y))
    for train, test in GroupKFold(n_splits=folds).split(data.X, data.y, data.groups):
        if len(set(data.y[train].tolist())) < 2:
            scores[test] = float(data.y[train][0])
            continue
        model = _estimator(params or {}, seed).fit(data.X[train], data.y[train])
        scores[test] = model.predict_proba(data.X[test])[:, list(model.classes_).index(1)]
    return {"folds": folds, **mask_metrics(data.y, scores, threshold)}


def train_risk_model(
    documents: Sequence[LabelledDocument],
    *,
    scorer: str = DEFAULT_SCORER,
    folds: int = 5,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
    threshold: float = DEFAULT_SUPERVISED_THRESHOLD,
    source: str = "",
) -> SupervisedRiskModel:
    """Fit the default model on all ``documents`` and record its cross-validated metrics.

    Raises ``ValueError`` when the documents give no row of one of the two classes.
    """
    started = time.perf_counter()
    data = build_dataset(documents, scorer)
    if len(set(data.y.tolist())) < 2:
        raise ValueError(
            f"need entities of both classes to train (got {len(data.y)} labelled entities, "
            f"{int(data.y.sum())} MASK); are the annotations in the documents?"
        )
    metrics = cross_validate(data, folds=folds, seed=seed, params=params, threshold=threshold)
    estimator = _estimator(params or {}, seed).fit(data.X, data.y)
    config = {
        "version": MODEL_VERSION,
        "package_version": package_version(),
        "model": MODEL_NAME,
        "params": {**DEFAULT_PARAMS, **(params or {}), "random_state": seed},
        "sklearn_version": sklearn.__version__,
        "scorer": scorer,
        "threshold": threshold,
        "training": {
            "source": source,
            "documents": len(documents),
            "entities": len(data.y),
            "mask": int(data.y.sum()),
            "keep": int(len(data.y) - data.y.sum()),
            "left_out_no_majority": data.left_out,
            "seconds": round(time.perf_counter() - started, 1),
        },
        "metrics": metrics,
    }
    return SupervisedRiskModel(estimator, config)
