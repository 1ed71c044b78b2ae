"""Development, the demo and the command-line tools.

With no ``DATABASE_URL`` a SQLite file under ``var/`` is used, and with no
``CELERY_BROKER_URL`` Kombu's file-system transport under ``var/broker``, so the
demo runs anywhere; set both URLs for PostgreSQL and Redis.
"""

from __future__ import annotations

import os

from sanitizer_app.settings.base import *  # noqa: F403
from sanitizer_app.settings.base import (
    VAR_DIR,
    broker_transport_options,
    database_settings,
)

DATABASES = database_settings(os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"))
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(CELERY_BROKER_URL)
