"""Pizza Theory readable on a 360 x 640 phone (issue 12, item 3): every label on the board is 12 px or
more, the last reveal and the board now are never two full boards at once, and the spaces a player may
take are marked by a shape as well as a colour."""
from __future__ import annotations

import random

import pytest

from companion.games.pizza_theory.rules import resolution_view
from companion.platform.core.registry import GAMES
from tests.a11y import played_table
from tests.contract.playout import playout

pytestmark = pytest.mark.browser  # every test here starts Chromium

SMALLEST_TEXT = """() => Array.from(document.querySelectorAll('.pt-board svg text'))
  .filter(t => t.checkVisibility())
  .map(t => ({text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a}))
  .sort((a, b) => a.px - b.px).slice(0, 3)"""
VISIBLE_BOARDS = "() => Array.from(document.querySelectorAll('.pt-board')).filter(b => b.checkVisibility()).length"


@pytest.fixture(scope="module")
def second_round(servers):
    """A three-player table at the start of a round after one that changed toppings (its reveal is
    fresh): (table, seat to place, the seat that places last this round)."""
    game = GAMES["pizza_theory"]
    _, steps = playout(game, 3, random.Random("readable"))
    at = next(i for i, s in enumerate(steps) if s.after.round >= 2 and s.after.phase == "add"
              and s.before.phase != "add" and resolution_view(s.after.last)["changes"])
    table = played_table(servers[0], "pizza_theory", steps[:at + 1])
    after = steps[at].after
    return table, after.order[after.turn], after.order[-1]


def _phone_of(phone, base, table, seat):
    page = phone()
    page.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][seat]["token"], "url": base}])
    page.goto(f"{base}/t/{table['code']}/s/{seat}")
    return page


def _smallest(page) -> float:
    found = page.evaluate(SMALLEST_TEXT)
    assert found, "no board text drawn"
    return found[0]["px"]


def test_one_board_at_a_time_with_labels_of_12_px_or_more(servers, phone, second_round):
    table, _, seat = second_round  # a player still waiting for their turn reads the reveal first
    page = _phone_of(phone, servers[0], table, seat)
    reveal = page.locator('#sheet details[data-testid="reveal"]')
    assert reveal.get_attribute("open") is not None
    assert page.evaluate(VISIBLE_BOARDS) == 1  # the reveal's board; the board now is folded away
    assert page.locator('[data-testid="pt-reveal-board"]').is_visible()
    assert _smallest(page) >= 12, page.evaluate(SMALLEST_TEXT)

    reveal.locator("> summary").click()  # the player folds the reveal: the board now, to tap on
    assert page.evaluate(VISIBLE_BOARDS) == 1
    assert page.locator('[data-testid="board-now"] .pt-board').is_visible()
    assert _smallest(page) >= 12, page.evaluate(SMALLEST_TEXT)


def test_legal_spaces_carry_a_ring_and_a_dot(servers, phone, second_round):
    table, seat, _ = second_round
    page = _phone_of(phone, servers[0], table, seat)  # their turn: the board now comes first
    assert page.evaluate(VISIBLE_BOARDS) == 1
    legal = page.locator("[data-testid=board-now] button.pt-space.legal")
    assert legal.count() > 0
    # the mark (a ring and a dot) on every legal space and nowhere else
    marks = page.evaluate("""() => Array.from(document.querySelectorAll('[data-testid=board-now] button.pt-space'))
      .map(b => { const m = getComputedStyle(b, '::after');
                  return {legal: b.classList.contains('legal'), ring: m.content !== 'none' && parseFloat(m.borderTopWidth) >= 2,
                          dot: m.backgroundImage.startsWith('radial-gradient')}; })""")
    assert marks and all((m["ring"] and m["dot"]) == m["legal"] for m in marks), marks
    assert page.locator("[data-testid=board-now] .pt-hexes use.legal").count() == legal.count()
    assert "ring and a dot" in page.locator('[data-testid="instruction"]').inner_text()


def test_the_table_view_on_a_phone_has_labels_of_12_px_or_more(servers, phone, second_round):
    table, _, _ = second_round
    page = phone()
    page.goto(f"{servers[0]}/t/{table['code']}/view")
    assert _smallest(page) >= 12, page.evaluate(SMALLEST_TEXT)
