"""axe-core in a real page, and screenshots a person can look at.

axe-core comes from the npm registry (package.json; scripts/test.sh installs it into node_modules/).
The pages' CSP allows no inline script, so Playwright's add_script_tag is refused; page.evaluate
goes through the DevTools protocol, which the CSP does not govern, and leaves the page's own
policy in force for everything else.
"""
from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from companion.platform.core.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "test-artifacts"
BLOCKING = ("serious", "critical")

RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " :: " + n.failureSummary)}));
}"""


def _axe_source() -> str:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (scripts/test.sh does it).")
    return AXE.read_text()


def _load_axe(page) -> None:
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_axe_source())


def violations(page) -> list[dict]:
    """The serious and critical axe violations of what the page shows now."""
    _load_axe(page)
    return [v for v in page.evaluate(RUN) if v["impact"] in BLOCKING]


def describe(found: list[dict]) -> str:
    return "\n".join(f"{v['impact']} {v['id']}: {v['help']}\n    " + "\n    ".join(v["nodes"]) for v in found)


def screenshot(page, name: str) -> Path:
    """The whole page as test-artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / (re.sub(r"[^A-Za-z0-9_.-]+", "-", name) + ".png")
    page.screenshot(path=str(path), full_page=True)
    return path


SMALL_TARGETS = """min => {
  const controls = document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])');
  const small = [];
  for (const el of controls) {
    // a radio button or a tick box is tapped through its label
    const target = (el.matches('input[type=radio], input[type=checkbox]') && el.closest('label')) || el;
    // Dice and Slice's dots are pointer shortcuts kept out of the focus order; every move they make
    // is also on the sheet's arrow pad, whose buttons this check does measure
    if (target.matches('svg a[tabindex="-1"]')) continue;
    const box = target.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(target).visibility === 'hidden') continue;
    if (box.height < min - 0.5) {
      const what = (target.textContent || target.getAttribute('aria-label') || target.name || '').trim();
      small.push(target.tagName.toLowerCase() + (typeof target.className === 'string' && target.className ? '.' + target.className : '') +
                 ' "' + what.slice(0, 30) + '" ' + box.height.toFixed(1) + 'px');
    }
  }
  return small;
}"""


def small_targets(page, min_px: int = 44) -> list[str]:
    """Visible links and controls less than `min_px` tall."""
    return page.evaluate(SMALL_TARGETS, min_px)


STRUCTURE = """async () => {
  const result = await axe.run(document, {runOnly: ["heading-order", "page-has-heading-one", "nested-interactive"]});
  const found = result.violations.map(v => v.id + ": " + v.nodes.map(n => n.target.join(" ")).join(", "));
  const meta = document.querySelector('meta[name="description"]');
  if (!meta || !meta.content.trim()) found.push("no meta description");
  return found;
}"""


def structure_problems(page) -> list[str]:
    """Headings out of order or missing, a control inside a picture, no meta description."""
    _load_axe(page)
    return page.evaluate(STRUCTURE)


def api(base, path, body, token=None):
    """POST JSON to a running server: (status, answer)."""
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def played_table(base, gid, steps, **extra):
    """A table of `gid` (three players where it seats them) with `steps` of a playout entered."""
    game = GAMES[gid]
    players = min(game.max_players, max(game.min_players, 3))
    status, table = api(base, "/api/tables", {"game": gid, "players": ["Ann", "Ben", "Cleo"][:players], **extra})
    assert status == 201, table
    for step in steps:
        status, answer = api(base, f"/api/tables/{table['code']}/entries", step.entry,
                              table["seats"][step.seat]["token"])
        assert status == 201, answer
    return table
