"""Dice and Slice on a 360 x 640 phone and on the table view (issue 34, item 3): while the control pad
is shown, every dot of the sheet can be tapped where it is seen (the pad, stuck to the bottom of the
screen, covers none of it); on the table view three players' sheets fill the screen, and the final
table shows every label and name whole. Screenshots go to test-artifacts/."""
from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from companion.platform.core.registry import GAMES
from tests.a11y import screenshot
from tests.contract.playout import playout
from companion.games.dice_and_slice.tests.test_browser import api, tid

pytestmark = pytest.mark.browser

NAMES = ["Alexandra", "Benjamin", "Charlotte", "Dominic", "Eleanor", "Frederick"]
SCREENS = {"tv": (1920, 1080), "tablet": (1024, 768)}
# the dots of the sheet (13 x 10, the viewBox starting half a cell before dot 0) that the finger cannot
# reach where they are drawn: another element (the pad) is on top of them
UNREACHABLE = """() => {
  const svg = document.querySelector('[data-testid=tap-sheet]'); const r = svg.getBoundingClientRect();
  const out = [];
  for (let y = 0; y < 10; y++) for (let x = 0; x < 13; x++) {
    const px = r.left + (x * 10 + 5) / 130 * r.width, py = r.top + (y * 10 + 5) / 100 * r.height;
    const hit = document.elementFromPoint(px, py);
    if (!hit || !svg.contains(hit)) out.push([x, y]);
  }
  return out;
}"""
IDLE = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"


def _dot_on_screen(page, x, y) -> tuple[float, float]:
    box = tid(page, "tap-sheet").bounding_box()
    return box["x"] + (x * 10 + 5) / 130 * box["width"], box["y"] + (y * 10 + 5) / 100 * box["height"]


# the rows of the dots the pattern being placed would mark
GHOST_ROWS = """[...document.querySelectorAll('[data-testid=ghost-new], [data-testid=ghost-overlap]')]
  .map(c => Math.round(Number(c.getAttribute('cy')) / 10))"""


def _lowest_ghost_row(page) -> int:
    return max(page.evaluate(f"() => {GHOST_ROWS}"))


def test_every_dot_of_the_sheet_is_reachable_while_the_pad_is_shown(servers, phone):
    base = servers[0]
    table = api(base, "/api/tables", {"game": "dice_and_slice", "players": NAMES[:3]})
    tokens = [s["token"] for s in table["seats"]]
    api(base, f"/api/tables/{table['code']}/entries", {"kind": "roll", "faces": {"A": 6, "B": 3}}, tokens[0])
    api(base, f"/api/tables/{table['code']}/entries", {"kind": "choose", "die": "B"}, tokens[0])
    ben = phone()
    ben.context.add_cookies([{"name": f"seat_{table['code']}", "value": tokens[1], "url": base}])
    ben.goto(f"{base}/t/{table['code']}/s/1")
    ben.wait_for_load_state("load")
    expect(tid(ben, "place")).to_be_visible()
    assert ben.evaluate(UNREACHABLE) == []
    screenshot(ben, "dice_and_slice-phone-placing-whole-sheet")
    # the bottom row, tapped where it is seen (no scrolling first): the pattern comes down to it
    assert _lowest_ghost_row(ben) < 9
    for x in (0, 6, 12):
        ben.mouse.click(*_dot_on_screen(ben, x, 9))
        ben.wait_for_function(f"() => ({GHOST_ROWS}).includes(9)")
        ben.wait_for_function(IDLE)
        assert ben.evaluate(UNREACHABLE) == []
    for move in ("move-up", "rotate", "move-left"):
        tid(ben, move).click()
        ben.wait_for_function(IDLE)
        assert ben.evaluate(UNREACHABLE) == [], move
    screenshot(ben, "dice_and_slice-phone-placing-bottom-row")


def _table_part_way(base, players, share):
    game = GAMES["dice_and_slice"]
    _, steps = playout(game, players, random.Random(f"tv-{players}"))
    table = api(base, "/api/tables", {"game": "dice_and_slice", "players": NAMES[:players]})
    for step in steps[:int(len(steps) * share)]:
        api(base, f"/api/tables/{table['code']}/entries", step.entry, table["seats"][step.seat]["token"])
    return table


def _table_view(browser, base, table, size):
    width, height = SCREENS[size]
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.goto(f"{base}/t/{table['code']}/view")
    page.wait_for_load_state("load")
    return ctx, page


SHEETS_SHARE = """() => [...document.querySelectorAll('#board .ds-tray')].reduce((sum, tray) => {
  const r = tray.getBoundingClientRect(); return sum + r.width * r.height; }, 0) / (innerWidth * innerHeight)"""
# the smallest share of the screen three players' drawn sheets take
THREE_SHEETS_SHARE = {"tv": 0.25, "tablet": 0.2}


@pytest.mark.parametrize("size", list(SCREENS))
def test_three_sheets_fill_the_table_view(servers, browser, size):
    table = _table_part_way(servers[0], 3, 0.6)
    ctx, page = _table_view(browser, servers[0], table, size)
    try:
        assert page.locator("#board .ds-tray").count() == 3
        assert page.evaluate(SHEETS_SHARE) >= THREE_SHEETS_SHARE[size]
        screenshot(page, f"dice_and_slice-table-view-3-players-{size}")
    finally:
        ctx.close()


CUT_SHORT = """() => [...document.querySelectorAll('#board .ds-sum th, #board .ds-sum td')]
  .filter(cell => cell.scrollWidth > cell.clientWidth + 1).map(cell => cell.textContent.trim())"""


@pytest.mark.parametrize("players", [3, 6])
@pytest.mark.parametrize("size", list(SCREENS))
def test_the_final_table_shows_every_label_and_name_whole(servers, browser, players, size):
    table = _table_part_way(servers[0], players, 1.0)
    ctx, page = _table_view(browser, servers[0], table, size)
    try:
        final = page.locator("#board .ds-sum")
        expect(final).to_be_visible()
        assert page.evaluate(CUT_SHORT) == []
        heads = final.locator("thead th").all_inner_texts()
        assert all(any(name in head for head in heads) for name in NAMES[:players])
        labels = final.locator("tbody th").all_inner_texts()
        assert "Topping bonus" in [" ".join(label.split()) for label in labels]
        assert page.evaluate("document.documentElement.scrollHeight <= innerHeight")
        screenshot(page, f"dice_and_slice-table-view-final-{players}-players-{size}")
    finally:
        ctx.close()
