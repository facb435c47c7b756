#!/usr/bin/env bash
# Installs Debian's `chromium` (headless browser for the HTML report tests) when it is missing.
# Idempotent: does nothing when a chromium binary is already on PATH. Needs root (or sudo).
set -euo pipefail

for bin in chromium chromium-browser; do
  if command -v "$bin" >/dev/null 2>&1; then
    echo "chromium: $(command -v "$bin") already installed"
    exit 0
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "chromium is missing and this script needs root to install it (apt-get install chromium)" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# fonts-dejavu-core: so the report's text renders the same everywhere.
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "chromium: $(command -v chromium) installed"
