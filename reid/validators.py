"""Parameter validators of the re-identification job kinds (``train_reid``,
``reid_deidentify``, ``reid_curve``; ``workers/kinds.py`` registers them).

Every error names the parameter: the job API answers it with 400 and that message.
Ids must name objects of the job's project (or shared ones), so a project admin cannot
train on, or rank against, another project's knowledge base.
"""

from __future__ import annotations

from typing import Any

from jobs.services import JobStateError
from jobs.validators import (
    bool_param,
    chunk_size_param,
    document_ids_param,
    id_param,
    int_param,
    known_keys,
)
from knowledge.models import KbStatus, KnowledgeBase
from knowledge.selectors import knowledge_base_in_scope
from ml.validators import name_and_base_model_validate

# Names of the job kinds whose data this app owns.
TRAIN_REID = "train_reid"
REID_DEIDENTIFY = "reid_deidentify"
REID_CURVE = "reid_curve"

# Bounds (the commands use the same defaults).
EPOCHS_BOUNDS = (1, 50)
BATCH_SIZE_BOUNDS = (1, 256)
SYNTHETIC_DOCS_BOUNDS = (0, 20_000)
K_BOUNDS = (1, 10_000)
MAX_STEPS_BOUNDS = (1, 10_000)
SEED_BOUNDS = (0, 2**31 - 1)
MAX_K_VALUES = 10
DEFAULT_K = 10
DEFAULT_CURVE_K_VALUES = (1, 10, 50)
# "none": greedy from no masks; "risk": from the risk solver's masks, adding what is needed.
STARTS = ("none", "risk")

TRAIN_REID_KEYS = frozenset(
    {
        "knowledge_base_id",
        "name",
        "base_model",
        "epochs",
        "batch_size",
        "synthetic_docs",
        "seed",
        "activate",
    }
)
DEIDENTIFY_KEYS = frozenset(
    {"knowledge_base_id", "k", "start", "document_ids", "max_steps", "chunk_size"}
)
CURVE_KEYS = frozenset({"knowledge_base_id", "k_values", "document_ids"})


def _knowledge_base(params: dict[str, Any], project: Any) -> None:
    """Optional (the project's newest ready one by default); when given, ready and in scope."""
    value = params.get("knowledge_base_id")
    if value is None:
        return
    id_param(value, "knowledge_base_id")
    if not knowledge_base_in_scope(knowledge_base_id=value, project=project, shared_ok=True):
        raise JobStateError(f"knowledge_base_id: no knowledge base {value!r} in this project")
    if not KnowledgeBase.objects.filter(pk=value, status=KbStatus.READY).exists():
        raise JobStateError(f"knowledge_base_id: knowledge base {value} is not ready")


def train_reid_params_validate(params: dict[str, Any], project: Any) -> None:
    """``train_reid``: the knowledge base whose targets it learns, the schedule, extras."""
    known_keys(params, TRAIN_REID_KEYS)
    _knowledge_base(params, project)
    name_and_base_model_validate(params)
    int_param(params, "epochs", *EPOCHS_BOUNDS)
    int_param(params, "batch_size", *BATCH_SIZE_BOUNDS)
    int_param(params, "synthetic_docs", *SYNTHETIC_DOCS_BOUNDS)
    int_param(params, "seed", *SEED_BOUNDS)
    bool_param(params, "activate")


def reid_deidentify_params_validate(params: dict[str, Any], project: Any) -> None:
    """``reid_deidentify``: greedy masking until the target's rank is above ``k``."""
    known_keys(params, DEIDENTIFY_KEYS)
    _knowledge_base(params, project)
    int_param(params, "k", *K_BOUNDS)
    int_param(params, "max_steps", *MAX_STEPS_BOUNDS)
    chunk_size_param(params)
    start = params.get("start")
    if start is not None and start not in STARTS:
        raise JobStateError(f"start must be one of: {', '.join(STARTS)}")
    document_ids_param(params, project)


def reid_curve_params_validate(params: dict[str, Any], project: Any) -> None:
    """``reid_curve``: the greedy thresholds of the curve and the documents it covers."""
    known_keys(params, CURVE_KEYS)
    _knowledge_base(params, project)
    k_values = params.get("k_values")
    low, high = K_BOUNDS
    if k_values is not None and (
        not isinstance(k_values, list)
        or not 0 < len(k_values) <= MAX_K_VALUES
        or not all(
            isinstance(k, int) and not isinstance(k, bool) and low <= k <= high for k in k_values
        )
    ):
        raise JobStateError(
            f"k_values must be a list of 1 to {MAX_K_VALUES} integers from {low} to {high}"
        )
    document_ids_param(params, project)
