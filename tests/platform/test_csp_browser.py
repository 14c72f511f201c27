"""With the Content-Security-Policy on (no inline script, no inline <style> elements), a real
browser plays every game's pages without one violation: htmx, our scripts and the games' own run."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from companion.platform.registry import GAMES

pytestmark = pytest.mark.browser

WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  e.violatedDirective + ' ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));
"""
MAX_PAGES = 15
SETTLED = "() => window.htmx && !document.querySelector('.htmx-request')"


def _violations(page) -> list[str]:
    return page.evaluate("window.__csp || []")


def _same_site_links(page, base: str) -> list[str]:
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    return sorted({h.split("#")[0] for h in hrefs if h.startswith(base)
                   and not urlsplit(h).path.endswith((".json", ".csv", ".svg"))})


def _tap_something(page) -> None:
    """Tap the first thing on the page that talks to the server through htmx, and let it settle."""
    target = page.locator("main [hx-post]:visible:enabled, main [hx-get]:visible:enabled").first
    if target.count():
        target.click()
        page.wait_for_function(SETTLED)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_no_page_of_a_game_breaks_the_content_security_policy(servers, phone, game_id):
    base = servers[0]
    game = GAMES[game_id]
    host = phone()
    host.context.add_init_script(WATCH)
    messages = []
    host.on("console", lambda m: messages.append(m.text) if "Content Security Policy" in m.text else None)

    host.goto(base + "/")
    host.check(f'input[name="game"][value="{game_id}"]')
    for i, name in enumerate(["Ann", "Ben"][:min(game.max_players, 2)]):
        host.fill(f'input[name="player{i}"]', name)
    host.check('input[name="pass_and_play"]')  # one device plays every seat: every sheet is open
    host.click("text=Start the table")
    assert "/host" in host.url
    code = urlsplit(host.url).path.split("/")[2]
    # every page this table's host can reach by following links (the game's own pages too)
    todo, seen = [host.url], set()
    while todo and len(seen) < MAX_PAGES:
        url = todo.pop(0)
        if url in seen:
            continue
        seen.add(url)
        host.goto(url)
        host.wait_for_function(SETTLED)
        assert host.evaluate("htmx.config.includeIndicatorStyles") is False, url
        todo += [link for link in _same_site_links(host, base) if code in link or "/t/" not in link]
        _tap_something(host)
        assert _violations(host) == [], url
    assert len(seen) >= 5  # home, host screen, a sheet, the table view, history at least
    assert messages == []
