#!/usr/bin/env bash
# Our scripts as phones get them: terser (pinned in package.json) turns each static/**/X.js (and each
# game's companion/games/<id>/static/**/X.js) into X.min.js
# beside it, and the server sends that for X.js (companion/platform/web/wire.py). Run this after changing a
# script and commit both files. With --check it writes nothing and fails, naming them, while any X.min.js
# is missing or out of date (tests/platform/test_minified_scripts.py runs that).
set -euo pipefail
cd "$(dirname "$0")/.."
TERSER=node_modules/.bin/terser
if [ "${1:-}" = "--check" ]; then
  [ -x "$TERSER" ] || { echo "terser is not installed: run npm ci (scripts/test.sh does)" >&2; exit 2; }
else
  . scripts/_setup.sh
  ensure_node_tools
fi
minify() { "$TERSER" "$1" --compress passes=3 --mangle; }  # the one way a script is minified
stale=0
for source in $(find static companion/games/*/static -name '*.js' ! -name '*.min.js' | sort); do
  made="${source%.js}.min.js"
  if [ "${1:-}" = "--check" ]; then
    minify "$source" | cmp -s - "$made" || { echo "out of date: $made" >&2; stale=1; }
  else
    minify "$source" > "$made"
  fi
done
exit "$stale"
