#!/usr/bin/env bash
# Set up (once) and start the companion server on this machine's LAN address, port 8000.
# Storage: SQLite under instance/ unless DATABASE_URL says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_setup.sh
ensure_venv .
exec .venv/bin/python -m companion "$@"
