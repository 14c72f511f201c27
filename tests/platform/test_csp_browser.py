"""With the Content-Security-Policy on (no inline script, no inline <style> elements), a real
browser plays every game's pages without one violation: htmx, our scripts and the games' own run."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from companion.platform.core.registry import GAMES
from tests.browser_fixtures import fill_players

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
    """The links to walk: not files, and not the language switch (it only sets a cookie and returns to
    the page already walked; following it would leave the walk reading another language)."""
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    return sorted({h.split("#")[0] for h in hrefs if h.startswith(base)
                   and not urlsplit(h).path.endswith((".json", ".csv", ".svg"))
                   and "lang=" not in urlsplit(h).query and not urlsplit(h).path.startswith("/lang/")})


def _tap_something(page) -> None:
    """Tap the first thing on the page that talks to the server through htmx, and let it settle."""
    target = page.locator("main [hx-post]:visible:enabled, main [hx-get]:visible:enabled").first
    if target.count():
        target.click()
        page.wait_for_function(SETTLED)


def test_no_page_of_any_game_breaks_the_content_security_policy(servers, phone):
    base = servers[0]
    host = phone()
    host.context.add_init_script(WATCH)
    messages = []
    host.on("console", lambda m: messages.append(m.text) if "Content Security Policy" in m.text else None)
    seen: set[str] = set()
    for game_id, game in GAMES.items():
        code = _start_pass_and_play(host, base, game_id, game)
        # every page this table's host reaches by following links (the game's own pages too);
        # pages of no table (the start page, history, editors) once for all games
        todo, walked = [host.url], 0
        while todo and walked < MAX_PAGES:
            url = todo.pop(0)
            if url in seen:
                continue
            seen.add(url)
            walked += 1
            host.goto(url)
            host.wait_for_function(SETTLED)
            assert host.evaluate("htmx.config.includeIndicatorStyles") is False, url
            todo += [link for link in _same_site_links(host, base) if code in link or "/t/" not in link]
            _tap_something(host)
            assert _violations(host) == [], url
        assert walked >= 4, game_id  # the host screen, a sheet, the table view, the history at least
    assert messages == []


def _start_pass_and_play(host, base: str, game_id: str, game) -> str:
    """Start a table from the start page with one device for every seat; return its code."""
    host.goto(base + "/")
    host.check(f'input[name="game"][value="{game_id}"]')
    fill_players(host, ["Ann", "Ben"][:min(game.max_players, 2)])
    host.check('input[name="pass_and_play"]')  # every sheet opens on this one device
    host.click("text=Start the table")
    assert "/host" in host.url
    return urlsplit(host.url).path.split("/")[2]
