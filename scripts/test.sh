#!/usr/bin/env bash
# Set up (once) and run the whole test suite, browser tests included.
# Installs Debian's chromium when it is missing (as root, or with sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_setup.sh
[ -x /usr/bin/chromium ] || apt_install chromium
ensure_venv '.[test]'
ensure_node_tools
exec .venv/bin/python -m pytest "$@"
