"""The test suite: PostgreSQL and Redis on 127.0.0.1 unless the URLs say otherwise.

pytest selects this module (pyproject.toml); processes the tests start (a Celery
worker, the demo server, a command) choose their own module explicitly.
"""

from __future__ import annotations

import os

from sanitizer_app.settings.base import *  # noqa: F403
from sanitizer_app.settings.base import broker_transport_options, database_settings

SECRET_KEY = "test-only-insecure-key"
DATABASES = {
    # No "progress" alias: pytest-django would need a second test database for it;
    # progress then goes through "default" (jobs.services handles both).
    "default": database_settings(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/sanitizer")
    )["default"]
}
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(CELERY_BROKER_URL)
# Tests create many users; the real hashers are deliberately slow.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
