"""Deployment: PostgreSQL, Redis and a real secret key, or the process does not start.

Behind TLS, set ``SECURE_SSL=1``: HTTPS redirects, secure session and CSRF cookies,
HSTS (``SECURE_HSTS_SECONDS``, default one year) and the proxy's
``X-Forwarded-Proto`` header are then trusted.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

from sanitizer_app.settings.base import *  # noqa: F403
from sanitizer_app.settings.base import (
    broker_transport_options,
    check_secret_key,
    database_settings,
    env_bool,
)

if not os.environ.get("SECRET_KEY"):
    raise ImproperlyConfigured("SECRET_KEY must be set to serve the web app (see .env.example).")
check_secret_key(os.environ["SECRET_KEY"])
for _name in ("DATABASE_URL", "CELERY_BROKER_URL"):
    if not os.environ.get(_name):
        raise ImproperlyConfigured(f"{_name} must be set in production (see .env.example).")

DEBUG = False
DATABASES = database_settings(os.environ["DATABASE_URL"])
CELERY_BROKER_URL = os.environ["CELERY_BROKER_URL"]
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(CELERY_BROKER_URL)

if env_bool("SECURE_SSL", False):
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
