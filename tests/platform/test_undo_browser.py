"""Undo only where it can work (issue 34, item 4), as players on 360 x 640 phones see it: the Undo
button comes and goes live with what the rules allow (a DiceZ turn until the next player has played,
a Pizza Theory cut until the reveal), and what the sheets say names players, never seats."""
from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from companion.platform.core.registry import GAMES
from tests.a11y import api, played_table, screenshot
from tests.browser_fixtures import tap_dice
from tests.contract.playout import playout

pytestmark = pytest.mark.browser

UNDO = '[data-testid="undo"]'
SEAT_NUMBER = re.compile(r"\bseat \d", re.IGNORECASE)


def _phone_of(phone, base, table, seat):
    page = phone()
    page.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][seat]["token"], "url": base}])
    page.goto(f"{base}/t/{table['code']}/s/{seat}")
    return page


def _score(page, dice, box) -> None:
    tap_dice(page, dice)
    page.locator(f'[data-testid="score-{box}"]').click()
    expect(page.locator(f'[data-testid="box-{box}"]')).to_be_visible()


def test_dicez_undo_shows_until_the_next_player_has_played(servers, phone):
    base = servers[0]
    status, table = api(base, "/api/tables", {"game": "dicez", "players": ["Ann", "Ben", "Cat"]})
    assert status == 201
    ann, ben = _phone_of(phone, base, table, 0), _phone_of(phone, base, table, 1)
    expect(ann.locator(UNDO)).to_have_count(0)  # nothing of Ann's to take back yet

    _score(ann, [3, 3, 3, 2, 2], "full_house")
    expect(ann.locator(UNDO)).to_be_visible()
    screenshot(ann, "undo-dicez-offered")
    expect(ben.locator('[data-testid="hint"]')).to_contain_text("Your turn", timeout=4000)
    expect(ben.locator(UNDO)).to_have_count(0)

    _score(ben, [6, 6, 6, 1, 2], "sixes")
    expect(ben.locator(UNDO)).to_be_visible()
    # Ben has played: Ann's turn can no longer be taken back, and her phone stops offering it, live
    expect(ann.locator(UNDO)).to_have_count(0, timeout=4000)
    assert not SEAT_NUMBER.search(ann.locator("#sheet").inner_text())
    screenshot(ann, "undo-dicez-gone-after-the-next-turn")

    ben.locator(UNDO).click()
    expect(ben.locator('[data-testid="undo-done"]')).to_contain_text("Undone")
    expect(ann.locator(UNDO)).to_be_visible(timeout=4000)  # Ben's turn is open again: Ann's may be undone


def test_pizza_theory_undo_of_a_cut_shows_only_until_the_reveal(servers, phone):
    base = servers[0]
    game = GAMES["pizza_theory"]
    _, steps = playout(game, 3, random.Random("undo-reveal"))
    last_cut = next(i for i, s in enumerate(steps) if s.before.phase == "cut" and s.after.phase != "cut")
    table = played_table(base, "pizza_theory", steps[:last_cut])
    first_cutter, last_cutter = steps[last_cut - 1].seat, steps[last_cut].seat
    early = _phone_of(phone, base, table, first_cutter)
    expect(early.locator(UNDO)).to_be_visible()  # a cut not yet revealed can be taken back

    late = _phone_of(phone, base, table, last_cutter)
    late.locator(f'[data-testid="line-{steps[last_cut].entry["line"]}"]').click()
    expect(late.locator('#sheet details[data-testid="reveal"]')).to_be_attached()
    expect(late.locator(UNDO)).to_have_count(0)  # the cuts are revealed: none of them is undone any more
    expect(early.locator(UNDO)).to_have_count(0, timeout=4000)
    for page in (early, late):
        assert not SEAT_NUMBER.search(page.locator("#sheet").inner_text())
    screenshot(late, "undo-pizza-theory-none-after-the-reveal")
