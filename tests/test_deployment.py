"""Deployment files and secure defaults (no Docker engine here: structure only)."""

from __future__ import annotations

import os
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


def test_env_example_lists_every_setting():
    example = (REPO / ".env.example").read_text()
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"):
        assert f"{name}=" in example


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
