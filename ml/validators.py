"""Parameter validators of the ml job kinds (pre-annotation, training of the recognizer,
the supervised risk classifier and the masked LM).

Ids in parameters must name objects of the job's project (or shared ones), so a
project admin cannot run another project's models.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.utils.text import slugify

from jobs.services import JobStateError
from jobs.validators import bool_param, chunk_size_param, id_param, int_param, known_keys
from ml.models import ModelKind
from ml.selectors import model_version_in_scope
from ml.services.risk_training import MLM_TRAINING_KEYS, RISK_CLASSIFIERS, RISK_TRAINING_KEYS
from ml.services.training import TRAINING_JOB_KEYS

# Names of the job kinds whose data this app owns (workers/kinds.py registers them).
PREANNOTATE = "preannotate"
TRAIN_RECOGNIZER = "train_recognizer"
TRAIN_RISK = "train_risk"
TRAIN_MLM = "train_mlm"


def preannotate_params_validate(params: dict[str, Any], project: Any) -> None:
    value = params.get("model_version_id")
    if value is not None:
        id_param(value, "model_version_id")
        if not model_version_in_scope(
            model_version_id=value, project=project, kind=ModelKind.RECOGNIZER
        ):
            raise JobStateError(
                f"no {ModelKind.RECOGNIZER} model version {value!r} in this project"
            )
    int_param(params, "batch_size", 1, 256)
    chunk_size_param(params)


# A client's training job must end: an epoch count in the thousands would hold a gpu
# worker for weeks before its time limit frees it. Sequences longer than the
# encoders' 512 positions would fail mid-run; threads beyond a large host's cores
# only slow it down.
TRAINING_BOUNDS = {
    "epochs": (1, 100),
    "max_steps": (1, 1_000_000),
    "batch_size": (1, 256),
    "max_length": (8, 512),
    "num_threads": (1, 256),
}


def training_params_validate(
    params: dict[str, Any], project: Any, *, extra_keys: Iterable[str] = ()
) -> None:
    """Parameters of a training job; ``extra_keys`` are those of a particular kind."""
    known_keys(params, (*TRAINING_JOB_KEYS, *extra_keys), noun="training parameters")
    name_and_base_model_validate(params)
    for key, (low, high) in TRAINING_BOUNDS.items():
        int_param(params, key, low, high)


def name_and_base_model_validate(params: dict[str, Any]) -> None:
    """The model's folder name (a slug) and the base model (one the administrator allowed)."""
    name = params.get("name")
    # The name becomes a folder under MODEL_DIR: a slug, so it cannot point elsewhere.
    if name is not None and (
        not isinstance(name, str) or slugify(name) != name or not 0 < len(name) <= 120
    ):
        raise JobStateError("name must be a slug of at most 120 characters")
    base_model = params.get("base_model")
    # A client names a model the administrator allowed, never a path of its choosing.
    if base_model and base_model not in settings.ALLOWED_BASE_MODELS:
        raise JobStateError(
            "base_model must be one of the models the administrator allowed (ALLOWED_BASE_MODELS)"
        )


def _number_param(params: dict[str, Any], key: str, low: float, high: float) -> None:
    value = params.get(key)
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high
    ):
        raise JobStateError(f"{key} must be a number from {low:g} to {high:g}")


def risk_training_params_validate(params: dict[str, Any], project: Any) -> None:
    """Parameters of ``train_risk`` (the supervised risk classifier)."""
    known_keys(params, RISK_TRAINING_KEYS, noun="training parameters")
    name_and_base_model_validate(params)
    if params.get("classifier", "gbdt") not in RISK_CLASSIFIERS:
        raise JobStateError(f"classifier must be one of: {', '.join(RISK_CLASSIFIERS)}")
    int_param(params, "epochs", 1, 1000)
    int_param(params, "max_steps", 1, 100_000)
    int_param(params, "batch_size", 1, 256)
    int_param(params, "folds", 2, 20)
    int_param(params, "seed", 0, 2**31 - 1)
    _number_param(params, "threshold", 0.0, 1.0)
    bool_param(params, "activate")


def mlm_training_params_validate(params: dict[str, Any], project: Any) -> None:
    """Parameters of ``train_mlm`` (the masked LM the risk scorer reads)."""
    known_keys(params, MLM_TRAINING_KEYS, noun="training parameters")
    name_and_base_model_validate(params)
    int_param(params, "epochs", 1, 1000)
    int_param(params, "max_steps", 1, 100_000)
    int_param(params, "batch_size", 1, 256)
    int_param(params, "seed", 0, 2**31 - 1)
    _number_param(params, "learning_rate", 1e-7, 1.0)
    bool_param(params, "activate")
