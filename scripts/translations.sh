#!/usr/bin/env bash
# The catalogues: extract every marked message (babel.cfg says where) into
# companion/translations/messages.pot, bring each language's messages.po up to it (a new message is
# added untranslated: tests/platform/test_translations.py fails until it has a German and a French
# translation) and compile the .mo files the app reads (committed, so a fresh clone needs no step).
#   bash scripts/translations.sh           extract, update and compile
#   bash scripts/translations.sh compile   only compile (after editing a .po)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=companion/translations
PYBABEL=".venv/bin/pybabel"
if [ "${1:-}" != compile ]; then
  # the markers: _()/gettext()/ngettext() in templates and the web layer; N_(), Text(), RuleError(),
  # MalformedEntry(), plural_text() and TableError()/abort()'s message in Python; t() in the scripts
  "$PYBABEL" -q extract -F babel.cfg --no-location --sort-output --no-wrap \
    -k _ -k gettext -k ngettext:1,2 -k N_ -k Text -k SeatText -k RuleError -k MalformedEntry \
    -k TableError:2 -k abort:2 -k plural_text:1,2 -k t -o "$DIR/messages.pot" .
  for lang in de fr; do
    if [ -f "$DIR/$lang/LC_MESSAGES/messages.po" ]; then
      "$PYBABEL" -q update -i "$DIR/messages.pot" -d "$DIR" -l "$lang" --no-fuzzy-matching --no-wrap
    else
      "$PYBABEL" -q init -i "$DIR/messages.pot" -d "$DIR" -l "$lang" --no-wrap
    fi
  done
fi
"$PYBABEL" -q compile -d "$DIR" --use-fuzzy=false 2>/dev/null || "$PYBABEL" -q compile -d "$DIR"
