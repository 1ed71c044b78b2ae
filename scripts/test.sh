#!/usr/bin/env bash
# Install everything (incl. Chromium for browser tests), start PostgreSQL and Redis if
# they are down, lint, and run the whole test suite against them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --browser
scripts/services.sh

export DATABASE_URL=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/sanitizer}
export CELERY_BROKER_URL=${TEST_CELERY_BROKER_URL:-redis://127.0.0.1:6379/0}
export SECRET_KEY=test-only-secret HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

echo "==> ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "==> import-linter (the library imports no Django or app; apps depend one way)"
.venv/bin/lint-imports
echo "==> mypy"
.venv/bin/mypy .
echo "==> pytest"
exec .venv/bin/python -m pytest -p no:cacheprovider --create-db -n 2 --dist loadfile "$@"
