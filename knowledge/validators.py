"""Parameter validators of the knowledge job kinds (indexing, distant labelling, masker).

A knowledge base named in parameters must belong to the job's project (or be shared,
where a kind may use shared ones), so a project admin cannot use another project's.
"""

from __future__ import annotations

from typing import Any

from jobs.services import JobStateError
from jobs.validators import id_param, int_param
from knowledge.selectors import knowledge_base_in_scope
from ml.validators import training_params_validate
from sanitizer.kanon.algorithm import selection_functions

# Names of the job kinds whose data this app owns (workers/kinds.py registers them).
KB_IMPORT = "kb_import"
DISTANT_LABEL = "distant_label"
TRAIN_MASKER = "train_masker"

# What a masker training job takes besides the common training parameters.
MASKER_EXTRA_KEYS = ("knowledge_base_id", "k", "max_arity", "selection", "seed")


def _knowledge_base_param(params: dict[str, Any], project: Any, *, shared_ok: bool) -> None:
    value = id_param(params.get("knowledge_base_id"), "knowledge_base_id")
    if not knowledge_base_in_scope(knowledge_base_id=value, project=project, shared_ok=shared_ok):
        raise JobStateError(f"no knowledge base {value!r} in this project")


def selection_validate(selection: Any) -> None:
    """A registered selection function (``sanitizer.kanon.algorithm.selection_functions``)."""
    if selection not in selection_functions:
        raise JobStateError(f"selection must be one of {', '.join(selection_functions.names())}")


def kb_import_params_validate(params: dict[str, Any], project: Any) -> None:
    _knowledge_base_param(params, project, shared_ok=False)


def distant_label_params_validate(params: dict[str, Any], project: Any) -> None:
    _knowledge_base_param(params, project, shared_ok=True)
    if "k" not in params:
        raise JobStateError("k is required")
    int_param(params, "k", 1, 1_000_000)
    int_param(params, "max_arity", 1, 6)
    selection_validate(params.get("selection", "greedy"))


def masker_params_validate(params: dict[str, Any], project: Any) -> None:
    _knowledge_base_param(params, project, shared_ok=True)
    training_params_validate(params, project, extra_keys=MASKER_EXTRA_KEYS)
