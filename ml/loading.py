"""Loading the model that labels a project's documents, once per process.

The recognizer is either the rule-based privacy-enhanced pipeline
(``sanitizer.recognizer``), built from the project's chosen components when it has
chosen some, or, when the project (or the installation) has an active recognizer
ModelVersion, the fine-tuned tagger that version points to.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from annotation.models import Project, SetSource
from annotation.services import RECOGNIZER_COMPONENTS_KEY
from ml.models import ModelKind, ModelVersion
from ml.selectors import active_model_version
from sanitizer.types import EntitySpan

RULE_BASED_NAME = "privacy-enhanced-recognizer"

PredictBatch = Callable[[Sequence[str]], list[list[EntitySpan]]]


@dataclass
class LoadedRecognizer:
    name: str
    version: str
    predict_batch: PredictBatch
    model_version: ModelVersion | None
    source: str


@functools.lru_cache(maxsize=4)
def _rule_based(config_key: tuple[tuple[str, Any], ...]) -> Any:
    from sanitizer.recognizer.pipeline import build_recognizer

    return build_recognizer(dict(config_key) or None)


@functools.lru_cache(maxsize=2)
def _tagger(path: str) -> Any:
    from sanitizer.training.tagger import load_tagger

    return load_tagger(path)


def rule_based_config(project: Project | None) -> dict[str, Any]:
    """The rule-based recognizer's configuration for ``project`` (hashable values).

    A project may name its recognizer components (``privacy_settings``); the
    components are part of the recognizer's version string, so its suggestions are
    never mistaken for those of the default configuration.
    """
    config: dict[str, Any] = {"spacy_model": settings.SPACY_MODEL}
    names = (project.privacy_settings or {}).get(RECOGNIZER_COMPONENTS_KEY) if project else None
    if names:
        config["components"] = tuple(names)
    return config


def rule_based_recognizer(project: Project | None = None) -> Any:
    return _rule_based(tuple(sorted(rule_based_config(project).items())))


def type_from_overlap(
    spans: Sequence[EntitySpan], typed: Sequence[EntitySpan], default: str = "MISC"
) -> list[EntitySpan]:
    """Give untyped spans (a masking tagger's MASK, a distant label) the semantic type
    of the typed span they overlap most, else ``default``; everything else is kept."""
    out = []
    for span in spans:
        best, best_overlap = None, 0
        for candidate in typed:
            overlap = min(span.end, candidate.end) - max(span.start, candidate.start)
            if overlap > best_overlap:
                best, best_overlap = candidate, overlap
        label = best.label if best is not None else default
        out.append(dataclasses.replace(span, label=label))
    return out


def _masker_predict(tagger: Any) -> PredictBatch:
    rules = rule_based_recognizer()

    def predict_batch(texts: Sequence[str]) -> list[list[EntitySpan]]:
        masks = tagger.predict_batch(texts)
        typed = rules.predict_batch(texts)
        return [type_from_overlap(m, t) for m, t in zip(masks, typed, strict=True)]

    return predict_batch


def recognizer_load(
    *, project: Project | None, model_version: ModelVersion | None = None, use_active: bool = True
) -> LoadedRecognizer:
    """Load (once per process) the recognizer to use for ``project``."""
    if model_version is None and use_active:
        model_version = active_model_version(project=project, kind=ModelKind.RECOGNIZER)
    if model_version is not None:
        tagger = _tagger(model_version.artefact_path)
        # A masking tagger says what to mask, not what it is: types come from the rules.
        predict = (
            _masker_predict(tagger)
            if model_version.kind == ModelKind.MASKER
            else tagger.predict_batch
        )
        return LoadedRecognizer(
            name=model_version.name,
            version=tagger.source,
            predict_batch=predict,
            model_version=model_version,
            source=SetSource.MODEL,
        )
    recognizer = rule_based_recognizer(project)
    return LoadedRecognizer(
        name=RULE_BASED_NAME,
        version=recognizer.version,
        predict_batch=recognizer.predict_batch,
        model_version=None,
        source=SetSource.PREANNOTATION,
    )
