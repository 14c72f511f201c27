"""German and French in a real browser: the language switch on every page, a choice the browser
remembers, and each game's sheet and table view in German and French (screenshots in
test-artifacts/ for a person to look at), with the scripts' messages translated too."""
from __future__ import annotations

import random
import re

import pytest

from companion.platform.core.registry import GAMES
from tests.a11y import played_table, screenshot
from tests.browser_fixtures import PHONE
from tests.contract.playout import playout

pytestmark = pytest.mark.browser  # every test here starts Chromium

GAME_IDS = [gid for gid, game in GAMES.items() if game.web is not None]
# a few words each page shows in that language (the switch's own names aside)
SAID = {"de": re.compile(r"\b(Summe|Tisch|Spieler|Runde|Würfel)\b"), "fr": re.compile(r"\b(Total|Table|joueur|manche|dé)\b")}


@pytest.fixture(scope="module")
def tables(servers):
    base = servers[0]
    made = {}
    for gid in GAME_IDS:
        game = GAMES[gid]
        _, steps = playout(game, min(game.max_players, max(game.min_players, 3)), random.Random(f"lang-{gid}"))
        made[gid] = played_table(base, gid, steps[:len(steps) // 2])
    return made


def _phone(browser, base, table, locale):
    ctx = browser.new_context(**PHONE, locale=locale)
    ctx.set_default_timeout(10_000)
    code = table["code"]
    ctx.add_cookies([{"name": f"seat_{code}", "value": table["seats"][0]["token"], "url": base},
                     {"name": f"host_{code}", "value": table["host_token"], "url": base}])
    return ctx.new_page()


@pytest.mark.parametrize("lang", ["de", "fr"])
@pytest.mark.parametrize("gid", GAME_IDS)
def test_each_games_sheet_and_table_view_read_in_german_and_french(browser, servers, tables, gid, lang):
    base, table = servers[0], tables[gid]
    page = _phone(browser, base, table, lang)
    try:
        for name, path in (("sheet", f"/t/{table['code']}/s/0"), ("view", f"/t/{table['code']}/view")):
            resp = page.goto(base + path)
            assert resp.ok
            assert page.locator("html").get_attribute("lang") == lang
            body = page.locator("main").inner_text()
            assert SAID[lang].search(body), f"{gid} {name} in {lang}: {body[:200]}"
            assert page.locator(".languages summary").inner_text().startswith(lang.upper())  # the switch says which
            assert page.locator(f".languages a[lang={lang}]").count() == 0  # and offers the two others
            screenshot(page, f"lang-{gid}-{name}-{lang}")
    finally:
        page.context.close()


def test_the_switch_is_remembered_by_the_browser_and_the_scripts_speak_it_too(browser, servers, tables):
    base, table = servers[0], tables["dicez"]
    page = _phone(browser, base, table, "en-GB")
    try:
        page.goto(base + "/")
        assert page.locator("h1").inner_text() == "Start a table"
        page.locator(".languages summary").click()  # the switch in the header opens
        page.locator(".languages a[lang=fr]").click()
        page.wait_for_url(base + "/?lang=fr")  # the same page, in French
        assert page.locator("h1").inner_text() == "Lancer une table"
        page.goto(base + f"/t/{table['code']}/s/0")  # another page, the same browser: still French
        assert page.locator("html").get_attribute("lang") == "fr"
        # a message of the scripts: the sheet's dice slots are labelled by static/dicez/sheet.js
        said = page.evaluate("() => window.companionText('Die {number}: not entered', {number: 2})")
        assert said == "Dé 2 : pas saisi"
        page.locator(".languages summary").click()
        page.locator(".languages a[lang=en]").click()
        assert page.locator("html").get_attribute("lang") == "en"
    finally:
        page.context.close()
