#!/usr/bin/env bash
# Create .venv and install the pinned dependencies; re-runs only when requirement files change.
# Usage: scripts/bootstrap.sh [--browser]   (--browser also installs Debian's chromium for UI tests)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $PYTHON"
  "$PYTHON" -m venv .venv
fi

stamp=.venv/.requirements.sha
want=$(cat requirements.txt requirements-dev.txt constraints.txt 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "==> installing Python dependencies (torch is the CPU wheel pinned in requirements.txt)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -r requirements-dev.txt -c constraints.txt
  echo "$want" > "$stamp"
fi

if [ "${1:-}" = "--browser" ] && ! command -v chromium >/dev/null 2>&1; then
  echo "==> installing Debian's chromium for the browser tests"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null && \
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
