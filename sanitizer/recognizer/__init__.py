"""Privacy-enhanced entity recognizer (seed 001 §3.1, rule/gazetteer part) and masking baselines.

Plain Python (no Django): ``build_recognizer(config).predict(text) -> list[EntitySpan]`` with the
8 TAB categories; ``sanitize_documents`` turns predictions into TAB mask files.
"""

from sanitizer.recognizer.masking import (
    apply_strategy,
    sanitize_documents,
    sanitize_file,
)
from sanitizer.recognizer.overlap import OverlapPolicy, resolve_overlaps
from sanitizer.recognizer.pipeline import (
    ComponentSpec,
    Recognizer,
    RecognizerConfig,
    build_recognizer,
    is_legal_reference,
)
from sanitizer.recognizer.registry import (
    component_registry,
    masking_strategy,
    recognizer_component,
    strategy_registry,
)

__all__ = [
    "ComponentSpec",
    "OverlapPolicy",
    "Recognizer",
    "RecognizerConfig",
    "apply_strategy",
    "build_recognizer",
    "component_registry",
    "is_legal_reference",
    "masking_strategy",
    "recognizer_component",
    "resolve_overlaps",
    "sanitize_documents",
    "sanitize_file",
    "strategy_registry",
]
