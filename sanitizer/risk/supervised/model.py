"""A trained supervised risk model: estimator + feature list + provenance, in a directory.

Layout of a model directory::

    model.joblib   the scikit-learn estimator (joblib, scikit-learn's recommended persistence)
    config.json    {"format", "version", "model", "features", "threshold", "scorer",
                    "training": {...summary...}, "metrics": {...cross-validated...}}

``config.json`` records the version of the recipe (:data:`MODEL_VERSION`) and of this
package that made the model and the SHA-256
of ``model.joblib``; :meth:`SupervisedRiskModel.load` refuses a directory whose features or
format it does not know, or whose estimator file was changed. joblib files are pickles:
load only model directories you (or your project) made. A directory whose ``format`` is
:data:`TRANSFORMER_FORMAT` holds the transformer classifier instead; :meth:`load` returns it
(same ``predict`` interface).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import joblib

from sanitizer.risk import RiskDocument
from sanitizer.risk.measures.common import candidates
from sanitizer.risk.supervised.features import FEATURES, CollectionFrequency, entity_features
from sanitizer.risk.surprisal import SurprisalScorer

MODEL_FORMAT = "sanitizer-supervised-risk/1"
TRANSFORMER_FORMAT = "sanitizer-supervised-risk-transformer/1"
"""The transformer classifier's directories (:mod:`~sanitizer.risk.supervised.transformer`)."""
MODEL_VERSION = "gbdt-features-1"
"""Changes when the features or the training recipe change (stored as ``version``)."""
MODEL_FILE = "model.joblib"
CONFIG_FILE = "config.json"
DEFAULT_SUPERVISED_THRESHOLD = 0.5
"""p(mask) at or above which an entity is risky (separate from the lm threshold)."""


class RiskModelError(ValueError):
    """A model directory that cannot be used (missing, foreign format, changed files)."""


def package_version() -> str:
    """The version of this package, stored in every model it makes."""
    try:
        return metadata.version("sanitizer-workbench")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _format(config_path: Path) -> object:
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RiskModelError(f"{config_path}: not JSON ({exc})") from exc
    return config.get("format") if isinstance(config, Mapping) else None


@dataclass
class SupervisedRiskModel:
    """A fitted classifier of entities (``predict_proba`` over :data:`FEATURES`)."""

    estimator: Any
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def threshold(self) -> float:
        return float(self.config.get("threshold", DEFAULT_SUPERVISED_THRESHOLD))

    def predict(
        self,
        document: RiskDocument,
        scorer: SurprisalScorer,
        collection: CollectionFrequency | None = None,
    ) -> dict[str, float]:
        """``{entity_id: p(mask)}`` for the document's candidate entities."""
        pool = candidates(document)
        if not pool:
            return {}
        rows = [entity_features(document, e, scorer, collection) for e in pool]
        probabilities = self.estimator.predict_proba(rows)
        column = list(self.estimator.classes_).index(1)
        return {e.entity_id: float(p[column]) for e, p in zip(pool, probabilities, strict=True)}

    def save(self, directory: str | Path) -> Path:
        """Write ``model.joblib`` and ``config.json`` into ``directory`` (created)."""
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        joblib.dump(self.estimator, target / MODEL_FILE)
        config = {
            **self.config,
            "format": MODEL_FORMAT,
            "features": list(FEATURES),
            "model_sha256": _sha256(target / MODEL_FILE),
        }
        config.setdefault("version", MODEL_VERSION)
        config.setdefault("package_version", package_version())
        (target / CONFIG_FILE).write_text(
            json.dumps(config, indent=1, ensure_ascii=False), encoding="utf-8"
        )
        self.config = config
        return target

    @classmethod
    def load(cls, directory: str | Path) -> SupervisedRiskModel:
        """Read a directory written by :meth:`save` (``RiskModelError`` when unusable)."""
        source = Path(directory)
        config_path, model_path = source / CONFIG_FILE, source / MODEL_FILE
        if config_path.is_file() and _format(config_path) == TRANSFORMER_FORMAT:
            # Imported here: the transformer module needs torch and the risk pipeline.
            from sanitizer.risk.supervised.transformer import TransformerRiskModel

            return TransformerRiskModel.load(source)
        if not config_path.is_file() or not model_path.is_file():
            raise RiskModelError(
                f"{source}: no supervised risk model here (expected {CONFIG_FILE} and "
                f"{MODEL_FILE}; make one with manage.py train_risk)"
            )
        config = json.loads(config_path.read_text(encoding="utf-8"))
        if not isinstance(config, Mapping) or config.get("format") != MODEL_FORMAT:
            raise RiskModelError(f"{source}: not a {MODEL_FORMAT} model")
        if list(config.get("features", ())) != list(FEATURES):
            raise RiskModelError(
                f"{source}: made with other features (version {config.get('version')}); "
                "retrain it with manage.py train_risk"
            )
        if config.get("model_sha256") != _sha256(model_path):
            raise RiskModelError(f"{source}: {MODEL_FILE} does not match its config.json")
        return cls(joblib.load(model_path), dict(config))
