"""axe-core on every page of every game, on a 360 x 640 phone in light and dark mode: no serious or
critical violation. Each page is also saved to test-artifacts/ for a person to look at.

Games are played to the middle and to the end with random legal entries (the contract's playout),
sent through the JSON API of a real server; the phone holds seat 0's and the host's cookies.
"""
from __future__ import annotations

import random

import pytest

from companion.platform.core.registry import GAMES
from tests.a11y import api, describe, played_table, screenshot, small_targets, structure_problems, violations
from tests.browser_fixtures import PHONE
from tests.contract.playout import playout

pytestmark = pytest.mark.browser  # every test here starts Chromium

SCHEMES = ("light", "dark")
GAME_IDS = [gid for gid, game in GAMES.items() if game.web is not None]

# (name, path) of the pages that belong to no table; {game} pages are repeated for every game
PLAIN_PAGES = [("start", "/"), ("history", "/history")]
GAME_PAGES = [("rules", "/rules/{game}")]
# pages of a table: "mid" a game under way, "end" a finished one
TABLE_PAGES = [("sheet", "/t/{code}/s/0"), ("view", "/t/{code}/view"), ("host", "/t/{code}/host")]
END_PAGES = [("history", "/t/{code}/history")]
EXTRA_PAGES = {  # a game's own pages
    "dice_and_slice": [("editions", "/dice-and-slice/editions", None),
                       ("edition-default", "/dice-and-slice/editions/default", None),
                       ("edition-new", "/dice-and-slice/editions/new", None)],
    "pizza_theory": [("cuts", "/t/{code}/pizza/cuts", "mid"), ("replay", "/t/{code}/pizza/replay", "end")],
}


def _cases():
    cases = [(name, path, None, None) for name, path in PLAIN_PAGES]
    for gid in GAME_IDS:
        cases += [(f"{gid}-{name}", path.format(game=gid), None, None) for name, path in GAME_PAGES]
        cases.append((f"{gid}-join", "join", gid, "join"))
        for stage in ("mid", "end"):
            pages = TABLE_PAGES + (END_PAGES if stage == "end" else [])
            cases += [(f"{gid}-{name}-{stage}", path, gid, stage) for name, path in pages]
        for name, path, stage in EXTRA_PAGES.get(gid, []):
            cases.append((f"{gid}-{name}" + (f"-{stage}" if stage else ""), path, gid, stage))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def tables(servers):
    """Per game: a table mid-game, one at its end, and one whose seats are all free (the join page)."""
    base = servers[0]
    made = {}
    for gid in GAME_IDS:
        game = GAMES[gid]
        players = min(game.max_players, max(game.min_players, 3))
        _, steps = playout(game, players, random.Random(f"a11y-{gid}"))
        made[(gid, "mid")] = played_table(base, gid, steps[:len(steps) // 2])
        made[(gid, "end")] = played_table(base, gid, steps)
        status, made[(gid, "join")] = api(base, "/api/tables", {"game": gid, "players": ["Ann", "Ben", "Cleo"][
            :players], "seat_tokens": False})
        assert status == 201
    return made


def _cookies(base, table):
    secret = table["join_url"].rsplit("/", 1)[1]
    code = table["code"]
    cookies = [{"name": f"host_{code}", "value": table["host_token"], "url": base},
               {"name": f"invite_{code}", "value": secret, "url": base}]
    if "token" in table["seats"][0]:
        cookies.append({"name": f"seat_{code}", "value": table["seats"][0]["token"], "url": base})
    return cookies


def phones_per_scheme(browser, servers, tables, **context_options):
    """One phone per colour scheme, holding the cookies of every table's host and seat 0 (closed
    when the caller's fixture ends)."""
    pages = {}
    for scheme in SCHEMES:
        ctx = browser.new_context(**PHONE, color_scheme=scheme, **context_options)
        ctx.set_default_timeout(10_000)
        for key, table in tables.items():
            if key[1] != "join":
                ctx.add_cookies(_cookies(servers[0], table))
        pages[scheme] = ctx.new_page()
    yield pages
    for page in pages.values():
        page.context.close()


@pytest.fixture(scope="module")
def screens(browser, servers, tables):
    yield from phones_per_scheme(browser, servers, tables)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name,path,gid,stage", CASES, ids=[c[0] for c in CASES])
def test_no_serious_accessibility_violation(screens, servers, tables, scheme, name, path, gid, stage):
    base, page = servers[0], screens[scheme]
    if stage == "join":  # scanning the QR code: the join link invites this phone, then the seats show
        url = tables[(gid, "join")]["join_url"]
    else:
        url = base + path.format(code=tables[(gid, stage)]["code"] if gid and stage else "")
    resp = page.goto(url)
    assert resp.ok, f"{url} answered {resp.status}"
    page.wait_for_function("() => window.htmx && document.readyState === 'complete'")
    screenshot(page, f"{name}-{scheme}")
    found = violations(page)
    assert not found, f"{name} ({scheme}):\n{describe(found)}"
    if scheme == "light":  # sizes and structure do not change with the colours
        assert not small_targets(page), f"{name}: controls under 44 px tall: {small_targets(page)}"
        assert not structure_problems(page), f"{name}: {structure_problems(page)}"
