"""Shared fixtures: one default recognizer per test session (spaCy loads once)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from sanitizer.recognizer import Recognizer, build_recognizer


@pytest.fixture(scope="session")
def recognizer() -> Recognizer:
    return build_recognizer()


def found(recognizer: Recognizer, text: str) -> list[tuple[str, str]]:
    """(text, label) pairs predicted for ``text``."""
    return [(s.text, s.label) for s in recognizer.predict(text)]
