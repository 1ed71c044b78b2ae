"""Deployment files and secure defaults (no Docker engine here: structure only)."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent


def test_compose_file_structure():
    compose = yaml.safe_load((REPO / "docker" / "compose.yml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "web", "worker-cpu", "worker-gpu"} <= set(services)
    for name in ("web", "worker-cpu", "worker-gpu"):
        service = services[name]
        assert service["build"]["dockerfile"] == "docker/Dockerfile"
        assert service["environment"]["DATABASE_URL"].startswith("postgres://")
        assert service["environment"]["CELERY_BROKER_URL"].startswith("redis://redis:")
        assert service["environment"]["DEBUG"] == "0"
        assert set(service["depends_on"]) == {"postgres", "redis"}
    cpu_cmd = services["worker-cpu"]["command"]
    gpu_cmd = services["worker-gpu"]["command"]
    assert cpu_cmd[cpu_cmd.index("-Q") + 1] == "cpu"
    assert gpu_cmd[gpu_cmd.index("-Q") + 1] == "gpu"
    devices = services["worker-gpu"]["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["capabilities"] == ["gpu"]
    assert "deploy" not in services["worker-cpu"]
    assert services["web"]["ports"] == ["8000:8000"]
    assert "healthcheck" in services["postgres"] and "healthcheck" in services["redis"]


def test_dockerfile_installs_pinned_requirements():
    dockerfile = (REPO / "docker" / "Dockerfile").read_text()
    assert "pip install --no-cache-dir -r requirements.txt -c constraints.txt" in dockerfile
    assert "USER sanitizer" in dockerfile
    requirements = (REPO / "requirements.txt").read_text().splitlines()
    assert "torch==2.13.0" in requirements
    for line in requirements:
        if line and not line.startswith("#"):
            assert "==" in line, f"unpinned requirement: {line}"


def _settings_probe(env: dict[str, str], expr: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "SANITIZER_DEMO", "DJANGO_SETTINGS_MODULE"}
    }
    clean.update(env)
    code = f"from sanitizer_app.settings import local as s; print({expr})"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=clean, capture_output=True, text=True
    )


def test_debug_is_off_unless_set():
    result = _settings_probe({"SECRET_KEY": "x" * 50}, "s.DEBUG")
    assert result.stdout.strip() == "False", result.stderr
    result = _settings_probe({"SECRET_KEY": "x" * 50, "DEBUG": "1"}, "s.DEBUG")
    assert result.stdout.strip() == "True", result.stderr


def test_secret_key_is_required_to_serve_the_web_app():
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "SANITIZER_DEMO", "DJANGO_SETTINGS_MODULE"}
    }
    code = "import sanitizer_app.wsgi"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=clean, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr
    served = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**clean, "SECRET_KEY": "x" * 50},
        capture_output=True,
        text=True,
    )
    assert served.returncode == 0, served.stderr


def test_command_line_tools_need_no_secret_key():
    first = _settings_probe({}, "s.SECRET_KEY")
    second = _settings_probe({}, "s.SECRET_KEY")
    assert first.returncode == 0, first.stderr
    # A random key per process, never the fixed development one.
    assert first.stdout != second.stdout
    assert "insecure" not in first.stdout


def test_embedded_defaults_without_urls():
    code = (
        "import os;"
        "[os.environ.pop(k, None) for k in ('DATABASE_URL', 'CELERY_BROKER_URL')];"
        "from sanitizer_app.settings import local as s;"
        "print(s.DATABASES['default']['ENGINE'], s.CELERY_BROKER_URL, os.environ['HF_HUB_OFFLINE'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, "SECRET_KEY": "x" * 50},
        capture_output=True,
        text=True,
    )
    assert result.stdout.split() == ["django.db.backends.sqlite3", "filesystem://", "1"], (
        result.stderr
    )


# os.environ.get("X", os.environ["X"], os.environ.setdefault("X", env_bool("X", env_list("X"...
_ENV_READ = re.compile(
    r"""(?:os\.environ(?:\.get|\.setdefault)?|\benv_[a-z]+)\s*[(\[]\s*["']([A-Z][A-Z0-9_]*)["']"""
)
# The settings modules and the Celery app.
_SETTINGS_SOURCES = [*sorted((REPO / "sanitizer_app" / "settings").glob("*.py"))]
_SETTINGS_SOURCES.append(REPO / "sanitizer_app" / "celery.py")


def _settings_read_from_environment() -> set[str]:
    return {name for path in _SETTINGS_SOURCES for name in _ENV_READ.findall(path.read_text())}


def test_env_example_lists_every_setting():
    example = (REPO / ".env.example").read_text()
    listed = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", example, flags=re.MULTILINE))
    read = _settings_read_from_environment()
    # The parser finds what it should (one name of each way of reading).
    assert {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "JOBS_STALE_SECONDS"} <= read
    assert {"HF_HUB_OFFLINE", "JOBS_JANITOR_SECONDS", "SECURE_HSTS_SECONDS"} <= read
    assert read - listed == set(), "settings missing from .env.example"
    # Set elsewhere, not read by a settings module, yet needed to deploy.
    assert {"DATABASE_URL", "CELERY_BROKER_URL", "JOBS_CHUNK_DOCUMENTS"} <= listed


def test_env_example_comments_every_setting():
    """Each setting has a comment above it (its own or its group's)."""
    lines = (REPO / ".env.example").read_text().splitlines()
    assert lines[0].startswith("#")
    for before, line in itertools.pairwise(lines):
        if re.match(r"^[A-Z][A-Z0-9_]*=", line):
            assert before.startswith("#") or re.match(r"^[A-Z][A-Z0-9_]*=", before), line


def test_compose_runs_exactly_one_beat_for_the_janitor():
    services = yaml.safe_load((REPO / "docker" / "compose.yml").read_text())["services"]
    beats = [name for name, s in services.items() if "beat" in s.get("command", [])]
    assert beats == ["beat"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "sanitizer_app", "beat"]
    for name, service in services.items():
        command = service.get("command", [])
        assert "-B" not in command and "--beat" not in command, name


def test_production_settings_behind_tls_set_hsts_and_secure_cookies():
    env = {
        "SECRET_KEY": "k3y-" + "x" * 60,
        "DATABASE_URL": "postgres://u@127.0.0.1:5432/x",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
        "SECURE_SSL": "1",
        "SECURE_HSTS_SECONDS": "600",
    }
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SANITIZER_DEMO", "DJANGO_SETTINGS_MODULE"}
    }
    code = (
        "import sanitizer_app.settings.production as s;"
        "print(s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE,"
        " s.SECURE_SSL_REDIRECT, s.SECURE_PROXY_SSL_HEADER)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env={**clean, **env}, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().split(maxsplit=4) == [
        "600",
        "True",
        "True",
        "True",
        "('HTTP_X_FORWARDED_PROTO', 'https')",
    ]
    readme = (REPO / "README.md").read_text()
    production = readme.split("### Production", 1)[1].split("\n## ", 1)[0]
    for name in ("SECURE_SSL", "SECURE_HSTS_SECONDS", "SESSION_COOKIE_SECURE", "beat"):
        assert name in production, name


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    first_block = readme.split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in first_block.strip().splitlines()]
    assert commands == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    assert "bash scripts/test.sh" in (REPO / ".ci" / "run").read_text()
    assert "scripts/services.sh" in (REPO / "scripts" / "test.sh").read_text()


def test_suite_runs_on_the_test_settings_module():
    from django.conf import settings

    # Selected by module (pyproject.toml), not by sniffing for pytest.
    assert settings.SETTINGS_MODULE == "sanitizer_app.settings.test"
    assert "progress" not in settings.DATABASES


def test_production_settings_refuse_missing_services():
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE"}
    }
    code = "import sanitizer_app.settings.production"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**clean, "SECRET_KEY": "x" * 50},
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "DATABASE_URL must be set in production" in result.stderr
