"""Shared fixtures. The suite runs on PostgreSQL and Redis when DATABASE_URL and
CELERY_BROKER_URL point at them (the README's test command sets both)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("SANITIZER_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
TAB_SAMPLE = SHARED_DATA / "tab_sample.json"


@pytest.fixture
def tab_sample_path() -> Path:
    if not TAB_SAMPLE.exists():
        pytest.fail(f"the TAB sample is missing: {TAB_SAMPLE} (set SANITIZER_SHARED_DATA)")
    return TAB_SAMPLE


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()
