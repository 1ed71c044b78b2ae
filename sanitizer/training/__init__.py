"""Trainable transformer token-classification tagger (plain Python, no Django).

One machinery for both taggers of the seed papers: the typed recognizer over the TAB
categories (seed 001 §3.1, labels ``SEMANTIC_TYPES``) and the masking tagger (seed 000
§3.3, labels ``["MASK"]``). Entry points: :class:`TrainingConfig`, :func:`train`,
:func:`load_tagger`.
"""

from sanitizer.training.config import TrainingConfig, bio_tags, default_base_model
from sanitizer.training.encoding import (
    EncodedText,
    bio_tags_for,
    decode_spans,
    encode_text,
    make_windows,
    merge_center,
    merge_mean,
    relabel_for_masking,
)
from sanitizer.training.registry import label_schemes, merge_strategies, taggers
from sanitizer.training.tagger import Tagger, load_tagger, read_manifest
from sanitizer.training.trainer import Example, ProgressCallback, TrainingResult, train

__all__ = [
    "EncodedText",
    "Example",
    "ProgressCallback",
    "Tagger",
    "TrainingConfig",
    "TrainingResult",
    "bio_tags",
    "bio_tags_for",
    "decode_spans",
    "default_base_model",
    "encode_text",
    "label_schemes",
    "load_tagger",
    "make_windows",
    "merge_center",
    "merge_mean",
    "merge_strategies",
    "read_manifest",
    "relabel_for_masking",
    "taggers",
    "train",
]
