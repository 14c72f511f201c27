"""Heard by a screen reader (issue 37, item 3): the page's one live region stays while fragments are
swapped, and what it says is about the reader's own sheet (test_live_regions_browser: not the whole scoreboard); Score pad
says when a new round opens; a button's spoken name holds its visible words; Pizza Theory's board
offers only the spaces a player may take as Tab stops; the replay's headings go in order; the
edition editor's squares are not announced as buttons."""
from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from companion.platform.core.registry import GAMES
from tests.a11y import api, played_table, structure_problems
from tests.browser_fixtures import settle
from tests.contract.playout import playout

pytestmark = pytest.mark.browser

LIVE = "[aria-live], [role=status], [role=log]"


def _seat_page(phone, base, table, seat=0):
    page = phone()
    page.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][seat]["token"], "url": base}])
    page.goto(f"{base}/t/{table['code']}/s/{seat}")
    page.wait_for_function("() => window.htmx && document.readyState === 'complete'")
    return page


def _mark_live_regions(page):
    page.evaluate(f"() => document.querySelectorAll('{LIVE}').forEach(el => el.dataset.kept = '1')")


def _new_live_regions(page):
    """Live regions that were not in the page when it was marked (a region put in anew)."""
    return page.evaluate(f"""() => Array.from(document.querySelectorAll('{LIVE}'))
      .filter(el => !el.dataset.kept).map(el => el.outerHTML.slice(0, 100))""")


@pytest.mark.parametrize("gid", ["dicez", "dice_and_slice", "pizza_theory", "score_pad"])
def test_live_regions_stay_while_the_sheet_changes(servers, phone, gid):
    base = servers[0]
    game = GAMES[gid]
    players = min(game.max_players, max(game.min_players, 3))  # as played_table seats them
    _, steps = playout(game, players, random.Random(f"heard-{gid}"))
    table = played_table(base, gid, [])
    page = _seat_page(phone, base, table)
    _mark_live_regions(page)
    for step in steps[:3]:  # entries from the phones, this one's included, reach this sheet
        status, answer = api(base, f"/api/tables/{table['code']}/entries", step.entry,
                             table["seats"][step.seat]["token"])
        assert status == 201, answer
    settle(page, base, table["code"])
    page.wait_for_timeout(300)
    assert page.locator("#announce").get_attribute("data-kept") == "1"
    assert not _new_live_regions(page), _new_live_regions(page)


def test_score_pad_says_when_a_new_round_opens(servers, phone):
    base = servers[0]
    status, table = api(base, "/api/tables", {"game": "score_pad", "players": ["Ann", "Ben"]})
    assert status == 201
    page = _seat_page(phone, base, table)
    page.locator('[data-testid="points"]').fill("12")
    page.locator('[data-testid="points"]').press("Enter")
    expect(page.locator('[data-testid="my-total"]')).to_have_text("12")
    status, _ = api(base, f"/api/tables/{table['code']}/entries", {"kind": "score", "points": 7},
                    table["seats"][1]["token"])
    assert status == 201
    settle(page, base, table["code"])
    expect(page.locator("#announce")).to_contain_text("Round 2")


def test_record_roll_is_spoken_with_its_visible_words(servers, phone):
    base = servers[0]
    status, table = api(base, "/api/tables", {"game": "dicez", "players": ["Ann", "Ben"],
                                              "options": {"roll_by_roll": True}})
    assert status == 201
    page = _seat_page(phone, base, table)
    button = page.locator('[data-testid="record-roll"]')
    expect(button).to_have_text("Record roll")
    expect(page.get_by_role("button", name="Record roll")).to_have_count(1)


def test_the_editors_squares_are_not_announced_as_buttons(servers, phone):
    page = phone()
    page.goto(servers[0] + "/dice-and-slice/editions/new")
    page.wait_for_function("() => document.querySelector('form.js') !== null")
    assert page.locator(".ds-sq").count() > 0
    assert page.locator(".ds-sq[role]").count() == 0
    assert page.locator("input[role=button]").count() == 0


@pytest.fixture(scope="module")
def pizza_rounds(servers):
    """A Pizza Theory table played to its end, and one at the start of its second round's adding."""
    game = GAMES["pizza_theory"]
    _, steps = playout(game, 3, random.Random("heard-pizza"))
    ended = played_table(servers[0], "pizza_theory", steps)
    at = next(i for i, s in enumerate(steps) if s.after.round >= 2 and s.after.phase == "add")
    adding = played_table(servers[0], "pizza_theory", steps[:at + 1])
    after = steps[at].after
    return ended, adding, after.order[after.turn]


def test_pizza_boards_tab_stops_are_the_legal_spaces(servers, phone, pizza_rounds):
    _, table, seat = pizza_rounds
    page = _seat_page(phone, servers[0], table, seat)
    spaces = page.evaluate("""() => Array.from(document.querySelectorAll('[data-testid=board-now] button.pt-space'))
      .map(b => ({legal: b.classList.contains('legal'), stop: b.tabIndex >= 0}))""")
    assert any(s["legal"] for s in spaces) and any(not s["legal"] for s in spaces)
    assert all(s["stop"] == s["legal"] for s in spaces), spaces
    first = page.locator("[data-testid=board-now] button.pt-space.legal").first
    first.focus()
    page.keyboard.press("Tab")  # the next stop is the next legal space, or past the board
    assert page.evaluate("""() => { const b = document.activeElement;
      return !b.matches('button.pt-space') || b.classList.contains('legal'); }""")


def test_the_replays_headings_go_in_order(servers, phone, pizza_rounds):
    table, _, _ = pizza_rounds
    page = phone()
    page.goto(f"{servers[0]}/t/{table['code']}/pizza/replay")
    rounds = int(page.locator('[data-testid="replay-round"]').inner_text().split()[-1])
    for r in range(1, rounds + 1):
        page.goto(f"{servers[0]}/t/{table['code']}/pizza/replay?round={r}")
        assert not structure_problems(page), (r, structure_problems(page))
