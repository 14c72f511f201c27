"""Phones get our scripts as terser minified them (static/**/X.min.js and each game's
companion/games/<id>/static/**/X.min.js, sent for X.js): each of those
files is what scripts/minify_js.sh makes of its script today, so a changed script cannot go out stale."""
from __future__ import annotations

import subprocess

from tests.browser_fixtures import ROOT


def test_every_script_of_ours_goes_out_as_terser_makes_it_now():
    scripts = [*(ROOT / "static").rglob("*.js"), *(ROOT / "companion" / "games").glob("*/static/**/*.js")]
    sources = [p for p in scripts if not p.name.endswith(".min.js")]
    assert sources and all(p.with_suffix(".min.js").exists() for p in sources), "run scripts/minify_js.sh"
    check = subprocess.run(["bash", "scripts/minify_js.sh", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr + "run scripts/minify_js.sh and commit the .min.js files"
