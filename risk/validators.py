"""Parameter validators of the risk job kinds (``risk_assess``, ``risk_solve``)."""

from __future__ import annotations

from typing import Any

from jobs.services import JobStateError
from jobs.validators import chunk_size_param, document_ids_param, id_param, int_param, known_keys
from ml.models import ModelKind
from ml.selectors import active_model_version, model_version_in_scope
from sanitizer.risk import risk_measures

# Names of the job kinds whose data this app owns (workers/kinds.py registers them).
RISK_ASSESS = "risk_assess"
RISK_SOLVE = "risk_solve"

# The dial's settings and their bounds (the API checks them too).
DIAL_KEYS = ("threshold", "k", "max_arity", "measures")
THRESHOLD_BOUNDS = (0.0, 100.0)
K_BOUNDS = (1, 1_000_000)
MAX_ARITY_BOUNDS = (1, 4)

PARAM_KEYS = frozenset(
    {
        "document_ids",
        "chunk_size",
        "measures",
        "threshold",
        "k",
        "max_arity",
        "risk_model_version_id",
        "mlm_model_version_id",
    }
)


def threshold_param(value: Any) -> None:
    low, high = THRESHOLD_BOUNDS
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise JobStateError(f"threshold must be a number from {low:g} to {high:g}")


def measures_param(value: Any) -> None:
    names = risk_measures.names()
    if (
        not isinstance(value, list)
        or not value
        or len(value) > len(names)
        or any(v not in risk_measures for v in value if isinstance(v, str))
        or not all(isinstance(v, str) for v in value)
    ):
        raise JobStateError(f"measures must be a list of {', '.join(names)}")


def risk_params_validate(params: dict[str, Any], project: Any) -> None:
    """Both risk kinds take the same parameters (an assessment queues its solve with them)."""
    known_keys(params, PARAM_KEYS)
    document_ids_param(params, project)
    if params.get("measures") is not None:
        measures_param(params["measures"])
    if params.get("threshold") is not None:
        threshold_param(params["threshold"])
    int_param(params, "k", *K_BOUNDS)
    int_param(params, "max_arity", *MAX_ARITY_BOUNDS)
    chunk_size_param(params)
    _model_param(params, "mlm_model_version_id", project, ModelKind.MASKED_LM, "masked-LM")
    has_model = _model_param(
        params, "risk_model_version_id", project, ModelKind.RISK_CLASSIFIER, "risk"
    )
    if not has_model and (
        "supervised" in (params.get("measures") or ())
        and active_model_version(project=project, kind=ModelKind.RISK_CLASSIFIER) is None
    ):
        raise JobStateError(
            "the supervised measure needs risk_model_version_id or an active risk classifier "
            "in this project (train one with a train_risk job)"
        )


def _model_param(params: dict[str, Any], key: str, project: Any, kind: str, noun: str) -> bool:
    """Check the model version id under ``key``, if any; whether there was one."""
    value = params.get(key)
    if value is None:
        return False
    id_param(value, key)
    if not model_version_in_scope(model_version_id=value, project=project, kind=kind):
        raise JobStateError(f"no {noun} model version {value!r} in this project")
    return True
