#!/usr/bin/env bash
# Refresh the lock files from pyproject.toml's ranges, for every platform and Python >= 3.11, with
# hashes: requirements.lock (what run.sh installs) and requirements-test.lock (the same pins plus the
# test extras, for test.sh). Versions already in the lock files are kept while they fit the ranges;
# `bash scripts/lock.sh --upgrade` takes the newest that fit. Needs the package index (uv, from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m uv --version >/dev/null 2>&1 ||
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "uv==0.13.8"
export UV_CUSTOM_COMPILE_COMMAND="bash scripts/lock.sh"
compile() { .venv/bin/python -m uv pip compile --quiet --universal --generate-hashes --python-version 3.11 "$@"; }
compile "$@" pyproject.toml -o requirements.lock
compile "$@" --extra test -c requirements.lock pyproject.toml -o requirements-test.lock
