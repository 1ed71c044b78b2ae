#!/usr/bin/env bash
# Install everything, then start the app with demo data and a Celery worker.
# Embedded defaults: SQLite under var/ and Kombu's file-system broker, unless
# DATABASE_URL / CELERY_BROKER_URL are set (see .env.example).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
export SANITIZER_DEMO=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/python manage.py demo "$@"
