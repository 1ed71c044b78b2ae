"""The settings of the ``risk`` strategy (the privacy/utility dial) and their validation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from sanitizer.risk import risk_measures
from sanitizer.risk.measures.common import DEFAULT_MAX_ARITY
from sanitizer.risk.measures.kb import DEFAULT_K
from sanitizer.risk.measures.linkage import DEFAULT_TOP_DOCS
from sanitizer.risk.measures.lm import DEFAULT_LM_MAX_ARITY, DEFAULT_THRESHOLD, DEFAULT_WINDOW
from sanitizer.risk.surprisal import DEFAULT_SCORER
from sanitizer.solver import DEFAULT_TIME_LIMIT

# The mlm scorer's windows, in tokens with the special ones (NTS reads 100-token chunks).
MLM_WINDOW = 128
MLM_STRIDE = 64

ZERO_SHOT_MEASURES: tuple[str, ...] = ("lm", "linkage")
"""The default: needs no trained model and no file beyond the documents themselves."""

SUPERVISED_NEEDS_MODEL = (
    "the supervised risk measure needs a trained model: --risk-model DIR (make one with "
    "manage.py train_risk)"
)


class RiskOptionsError(ValueError):
    """Settings that cannot be honoured (unknown measure, missing file, not implemented)."""


@dataclass(frozen=True)
class RiskOptions:
    """Which measures run and how strict they are.

    ``measures=None`` means :data:`ZERO_SHOT_MEASURES`, plus ``kb`` when ``kb`` is given and
    ``supervised`` when ``risk_model`` (a ``train_risk`` directory) is given.
    ``threshold`` is in nats (an entity is risky when log p < −threshold); ``max_arity``
    bounds the combinations of ``linkage`` and ``kb``; ``lm_max_arity`` those of ``lm``.
    ``supervised_threshold`` is p(mask) for the ``supervised`` measure (``None``: the model's
    own, 0.5 by default). ``mlm`` (a local masked-LM directory, or a hub name already in the
    local cache) makes the ``mlm`` surprisal scorer read entities in context; without it the
    scorer is ``scorer`` (default ``wordfreq``). ``mlm_window``/``mlm_stride`` are its
    windows, in tokens.
    """

    measures: tuple[str, ...] | None = None
    threshold: float = DEFAULT_THRESHOLD
    max_arity: int = DEFAULT_MAX_ARITY
    lm_max_arity: int = DEFAULT_LM_MAX_ARITY
    k: int = DEFAULT_K
    kb: str | None = None
    scorer: str = DEFAULT_SCORER
    window: int = DEFAULT_WINDOW
    top_docs: int = DEFAULT_TOP_DOCS
    time_limit: float = DEFAULT_TIME_LIMIT
    risk_model: str | None = None
    supervised_threshold: float | None = None
    mlm: str | None = None
    mlm_window: int = MLM_WINDOW
    mlm_stride: int = MLM_STRIDE
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RiskOptions:
        """From plain data (command-line options, API payloads); ``None`` values are defaults."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known and v is not None}
        measures = values.get("measures")
        if isinstance(measures, str):
            values["measures"] = parse_measures(measures)
        elif measures is not None:
            values["measures"] = tuple(measures)
        return cls(**values)

    @property
    def active_measures(self) -> tuple[str, ...]:
        """The measures that run, in order."""
        if self.measures is not None:
            return self.measures
        extra = (("kb",) if self.kb else ()) + (("supervised",) if self.risk_model else ())
        return (*ZERO_SHOT_MEASURES, *extra)

    def validate(self) -> RiskOptions:
        """Raise :class:`RiskOptionsError` for settings that cannot run; return ``self``."""
        if self.mlm and not masked_lm_available(self.mlm):
            raise RiskOptionsError(
                f"--mlm {self.mlm}: neither a masked-LM directory (with config.json) nor a "
                "model in the local Hugging Face cache (nothing is downloaded)"
            )
        if self.scorer == "mlm" and not self.mlm:
            raise RiskOptionsError("the mlm scorer needs a model: --mlm PATH")
        if self.mlm_window < 8 or not 0 < self.mlm_stride <= self.mlm_window - 2:
            raise RiskOptionsError(
                f"need mlm window ≥ 8 and 0 < stride ≤ window − 2, got "
                f"{self.mlm_window}/{self.mlm_stride}"
            )
        for name in self.active_measures:
            if name not in risk_measures:
                known = ", ".join(risk_measures.names())
                raise RiskOptionsError(f"unknown risk measure {name!r} (known: {known})")
        if "kb" in self.active_measures and not self.kb:
            raise RiskOptionsError("the kb measure needs a knowledge base (--kb KB.jsonl)")
        if "supervised" in self.active_measures and not self.risk_model:
            raise RiskOptionsError(SUPERVISED_NEEDS_MODEL)
        if self.supervised_threshold is not None and not 0 <= self.supervised_threshold <= 1:
            raise RiskOptionsError(
                f"supervised threshold is a probability, got {self.supervised_threshold}"
            )
        if self.threshold < 0:
            raise RiskOptionsError(f"threshold must be ≥ 0 nats, got {self.threshold}")
        if self.max_arity < 1 or self.lm_max_arity < 1:
            raise RiskOptionsError("maximum arity must be ≥ 1")
        if self.k < 1:
            raise RiskOptionsError(f"k must be ≥ 1, got {self.k}")
        return self

    def scorer_spec(self) -> tuple[str, dict[str, Any]]:
        """``(name, options)`` for :func:`~sanitizer.risk.surprisal.make_scorer`."""
        if self.mlm:
            return "mlm", {"model": self.mlm, "window": self.mlm_window, "stride": self.mlm_stride}
        return self.scorer, {}


def masked_lm_available(name: str) -> bool:
    """A local model directory, or a hub name whose files are already in the local cache."""
    if (Path(name) / "config.json").is_file():
        return True
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(name, "config.json"), str)
    except ValueError:  # not a valid repository name either
        return False


def parse_measures(text: str | Sequence[str]) -> tuple[str, ...]:
    """``"lm, linkage"`` → ``("lm", "linkage")`` (duplicates dropped, order kept)."""
    items = text.split(",") if isinstance(text, str) else list(text)
    names = [item.strip() for item in items if item.strip()]
    if not names:
        raise RiskOptionsError("--measures names no measure")
    return tuple(dict.fromkeys(names))
