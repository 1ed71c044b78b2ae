"""Parameter validators of the ml job kinds (pre-annotation, recognizer training).

Ids in parameters must name objects of the job's project (or shared ones), so a
project admin cannot run another project's models.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.utils.text import slugify

from jobs.services import JobStateError
from jobs.validators import id_param, int_param
from ml.models import ModelKind
from ml.selectors import model_version_in_scope
from ml.services.training import TRAINING_JOB_KEYS

# Names of the job kinds whose data this app owns (workers/kinds.py registers them).
PREANNOTATE = "preannotate"
TRAIN_RECOGNIZER = "train_recognizer"


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


def training_params_validate(
    params: dict[str, Any], project: Any, *, extra_keys: Iterable[str] = ()
) -> None:
    """Parameters of a training job; ``extra_keys`` are those of a particular kind."""
    unknown = set(params) - set(TRAINING_JOB_KEYS) - set(extra_keys)
    if unknown:
        raise JobStateError(f"unknown training parameters: {', '.join(sorted(unknown))}")
    name = params.get("name")
    # The name becomes a folder under MODEL_DIR: a slug, so it cannot point elsewhere.
    if name is not None and (
        not isinstance(name, str) or slugify(name) != name or not 0 < len(name) <= 120
    ):
        raise JobStateError("name must be a slug of at most 120 characters")
    base_model = params.get("base_model")
    if base_model and base_model not in settings.ALLOWED_BASE_MODELS:
        raise JobStateError(
            "base_model must be one of the models the administrator allowed (ALLOWED_BASE_MODELS)"
        )
    for key in ("epochs", "max_steps", "batch_size", "max_length", "num_threads"):
        int_param(params, key, 1, 1_000_000)
