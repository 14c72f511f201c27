"""The table view on a TV after a reveal (issue 12): one full board, not the reveal's board beside
the board now. While the next round's toppings go down, the board now carries the revealed round's
cuts and its numbered changes, and beside it the room reads who cut which line and how many toppings
each colour had before and after the round, in type of 20 px or more on a 1920 x 1080 screen; the
whole view still fits the screen (TV and 4:3 tablet) without scrolling. Once the round reaches its
cuts, the reveal folds away and the board shows no cut lines."""
from __future__ import annotations

import random

import pytest

from companion.games.pizza_theory.rules import resolution_view
from companion.platform.core.registry import GAMES
from tests.a11y import api
from tests.browser_fixtures import ROOT
from tests.contract.playout import playout

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "test-artifacts"
NAMES = ["Alexandra", "Benjamin", "Charlotte"]
SCREENS = {"tv": ((1920, 1080), 20), "tablet": ((1024, 768), 15)}  # size, smallest name or count (px)
VISIBLE_BOARDS = """() => [...document.querySelectorAll('.pt-board')].filter(b => b.checkVisibility())
  .map(b => b.dataset.testid)"""
INSIDE = """() => {
  const card = document.querySelector('#board').getBoundingClientRect();
  const reveal = document.querySelector('[data-testid="table-reveal"]').getBoundingClientRect();
  return {page: [document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight],
          reveal_bottom: reveal.bottom, card_bottom: card.bottom};
}"""


def _table_after_a_reveal(base: str, players: int, stage: str) -> tuple[dict, dict]:
    """A table whose last round changed the board (two changes or more), with the next round's
    toppings going down ("adding") or all down ("cutting"); (the table, the server's view)."""
    game = GAMES["pizza_theory"]
    _, steps = playout(game, players, random.Random(f"tv-{players}"))
    revealed = next(i for i, s in enumerate(steps)
                    if s.entry["kind"] == "cut" and s.after.last is not None
                    and s.after.last.round == s.before.round and len(s.after.last.outcome.changes) >= 2
                    and s.after.phase != "over")
    upto = revealed if stage == "adding" else next(i for i in range(revealed, len(steps))
                                                   if steps[i].after.phase == "cut")
    status, table = api(base, "/api/tables", {"game": "pizza_theory", "players": NAMES[:players]})
    assert status == 201, table
    for step in steps[:upto + 1]:
        status, answer = api(base, f"/api/tables/{table['code']}/entries", step.entry,
                             table["seats"][step.seat]["token"])
        assert status == 201, answer
    return table, steps[upto].after


def _screen(browser, base: str, table: dict, size: str):
    (width, height), _ = SCREENS[size]
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.add_cookies([{"name": f"host_{table['code']}", "value": table["host_token"], "url": base}])
    page = ctx.new_page()
    page.goto(f"{base}/t/{table['code']}/view")
    page.wait_for_load_state("load")
    return ctx, page


def _px(locator) -> float:
    return locator.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")


@pytest.mark.parametrize("size", list(SCREENS))
@pytest.mark.parametrize("players", [3, 2])
def test_after_a_reveal_the_tv_draws_one_board_and_reads_each_players_round(servers, browser, players, size):
    base = servers[0]
    table, state = _table_after_a_reveal(base, players, "adding")
    res = resolution_view(state.last)
    ctx, page = _screen(browser, base, table, size)
    (width, height), smallest = SCREENS[size]
    page.screenshot(path=str(ARTIFACTS / f"table-view-pizza_theory-reveal-{players}p-{size}.png"))

    assert page.evaluate(VISIBLE_BOARDS) == ["pt-table-board"]  # one full board: the board now
    board = page.locator('[data-testid="pt-table-board"]')
    # the round's cuts and its numbered changes are drawn on it
    assert board.locator(".pt-cut").count() == len(res["cuts"])
    markers = board.locator(".pt-marker").evaluate_all(
        "gs => gs.map(g => [Number(g.dataset.marker), g.dataset.space])")
    changes = [",".join(map(str, ch["space"])) for ch in res["changes"]]
    assert len(changes) >= 2 and sorted(markers) == [[n, space] for n, space in enumerate(changes, 1)]
    # the checklist beside it lists the same spaces under the same numbers
    assert page.locator('[data-testid="change"]').evaluate_all("ls => ls.map(l => l.dataset.space)") == changes
    assert page.locator('[data-testid="reveal-on-board"]').is_visible()

    # who cut where, and each colour's toppings before and after the round, for the room to read
    reveal = page.locator('[data-testid="table-reveal"]')
    assert reveal.get_attribute("open") is not None
    for cut in res["cuts"]:
        colour = cut["colour"]
        row = page.locator(f'[data-testid="round-{colour}"]')
        assert row.is_visible()
        who = "Neutral die" if cut["neutral"] else NAMES[cut["seat"]]
        assert who in row.inner_text()
        assert page.locator(f'[data-testid="round-line-{colour}"]').inner_text() == str(cut["line"])
        after = page.locator(f'[data-testid="round-after-{colour}"]')
        assert after.inner_text().split()[0] == str(res["on_board_after"][colour])
        gain = res["on_board_after"][colour] - res["on_board_before"][colour]
        assert page.locator(f'[data-testid="round-gain-{colour}"]').inner_text() == (f"{gain:+d}" if gain else "±0")
        assert _px(row.locator(".tv-name")) >= smallest and _px(after) >= smallest

    fit = page.evaluate(INSIDE)
    assert fit["page"][0] <= width and fit["page"][1] <= height, fit
    assert fit["reveal_bottom"] <= fit["card_bottom"], fit  # nothing of the summary spills out of the view
    ctx.close()


def test_once_the_round_reaches_its_cuts_the_board_shows_no_old_cuts(servers, browser):
    base = servers[0]
    table, state = _table_after_a_reveal(base, 3, "cutting")
    ctx, page = _screen(browser, base, table, "tv")
    assert page.locator('[data-testid="table-reveal"]').get_attribute("open") is None  # folded
    assert page.evaluate(VISIBLE_BOARDS) == ["pt-table-board"]
    board = page.locator('[data-testid="pt-table-board"]')
    assert board.locator(".pt-cut").count() == 0 and board.locator(".pt-marker").count() == 0
    page.locator('[data-testid="table-reveal"] > summary').click()  # opened after all: still one board
    assert page.evaluate(VISIBLE_BOARDS) == ["pt-table-board"]
    assert page.locator('[data-testid="round-score"]').is_visible()
    ctx.close()
