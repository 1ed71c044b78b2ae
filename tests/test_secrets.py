"""Secrets stay secret: no guessable SECRET_KEY serves the app, no .env goes into the image."""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GOOD_KEY = "k3y-" + "x" * 60


def _env_example_value(name: str) -> str:
    for line in (REPO / ".env.example").read_text().splitlines():
        if line.startswith(f"{name}="):
            return line.split("=", 1)[1]
    raise AssertionError(f"{name} is not in .env.example")


def _clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "SANITIZER_DEMO", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(extra)
    return env


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True
    )


def test_the_refused_example_key_is_the_one_env_example_ships():
    from sanitizer_app.settings.base import EXAMPLE_SECRET_KEY

    assert _env_example_value("SECRET_KEY") == EXAMPLE_SECRET_KEY


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("change-me", "the example's value"),
        ("x" * 49, "49 characters long; at least 50"),
    ],
)
def test_production_settings_refuse_a_guessable_secret_key(key: str, message: str):
    env = _clean_env(
        SECRET_KEY=key,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/x",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
    )
    refused = _run("import sanitizer_app.settings.production", env)
    assert refused.returncode != 0
    assert "ImproperlyConfigured" in refused.stderr and message in refused.stderr
    accepted = _run("import sanitizer_app.settings.production", {**env, "SECRET_KEY": GOOD_KEY})
    assert accepted.returncode == 0, accepted.stderr


def test_the_web_entry_point_refuses_a_short_key_outside_debug_and_demo():
    local = {"DJANGO_SETTINGS_MODULE": "sanitizer_app.settings.local", "SECRET_KEY": "change-me"}
    refused = _run("import sanitizer_app.wsgi", _clean_env(**local))
    assert refused.returncode != 0
    assert "the example's value" in refused.stderr
    # The demo (scripts/demo.sh sets SANITIZER_DEMO=1) and DEBUG runs keep working.
    demo = _run("import sanitizer_app.wsgi", _clean_env(**local, SANITIZER_DEMO="1"))
    assert demo.returncode == 0, demo.stderr
    served = _run("import sanitizer_app.wsgi", _clean_env(**{**local, "SECRET_KEY": GOOD_KEY}))
    assert served.returncode == 0, served.stderr


def _dockerignored(path: str) -> bool:
    """Docker's rule: the last matching pattern wins; ``!`` re-includes."""
    ignored = False
    for raw in (REPO / ".dockerignore").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line.lstrip("!").strip("/")
        if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, pattern.removeprefix("**/")):
            ignored = not negate
    return ignored


def test_env_files_are_kept_out_of_the_image():
    assert _dockerignored(".env")
    assert _dockerignored(".env.production")
    # The example holds no secret and documents the settings.
    assert not _dockerignored(".env.example")
    assert not _dockerignored("manage.py")


def test_database_connections_are_checked_before_reuse():
    from sanitizer_app.settings.base import database_settings

    databases = database_settings("postgres://postgres@127.0.0.1:5432/x")
    assert databases["default"]["CONN_MAX_AGE"] > 0
    assert databases["default"]["CONN_HEALTH_CHECKS"] is True
    assert databases["progress"]["CONN_HEALTH_CHECKS"] is True


def test_sessions_last_a_working_day_and_end_with_the_browser():
    from django.conf import settings

    assert settings.SESSION_COOKIE_AGE == 8 * 3600
    assert settings.SESSION_EXPIRE_AT_BROWSER_CLOSE is True
    assert settings.SESSION_COOKIE_HTTPONLY is True


def test_production_behind_tls_sends_hsts_and_secure_cookies():
    env = _clean_env(
        SECRET_KEY=GOOD_KEY,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/x",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
        SECURE_SSL="1",
    )
    code = (
        "from sanitizer_app.settings import production as s;"
        "print(s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE)"
    )
    result = _run(code, env)
    assert result.stdout.split() == ["31536000", "True", "True"], result.stderr
    readme = (REPO / "README.md").read_text()
    assert "SECURE_SSL=1" in readme and "HSTS" in readme and "`Secure` session" in readme
