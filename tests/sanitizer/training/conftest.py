"""Shared fixtures for the training-package tests (the real MiniLM tokenizer, offline)."""

from __future__ import annotations

import os
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def tokenizer() -> Any:
    """The fast tokenizer shipped with the default encoder package."""
    from transformers import AutoTokenizer

    from sanitizer.training.config import default_base_model

    return AutoTokenizer.from_pretrained(default_base_model(), local_files_only=True)
