"""Small fixes (issue 37, item 4): the start page does not move once it is drawn, and still opens
every field without scripts; the links to each player's record at the end of a game are finger-sized."""
from __future__ import annotations

import random

import pytest

from companion.platform.core.registry import GAMES
from tests.a11y import played_table
from tests.contract.playout import playout

pytestmark = pytest.mark.browser

# every layout shift the page makes, kept from the very start (a shift right after a tap does not count)
SHIFTS = """window.__shifts = [];
new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value); })
  .observe({type: 'layout-shift', buffered: true});"""


def test_the_start_page_does_not_move_once_drawn(servers, phone):
    page = phone()
    page.context.add_init_script(SHIFTS)
    page.goto(servers[0] + "/")
    page.wait_for_function("() => document.readyState === 'complete'")
    page.wait_for_timeout(500)  # a shift comes with a frame; give the page a few after its script ran
    shifts = page.evaluate("window.__shifts")
    assert sum(shifts) < 0.01, shifts
    first = GAMES[page.locator('input[name="game"]:checked').get_attribute("value")]
    assert page.locator("[data-seat-field]:visible").count() == first.min_players
    assert page.locator("details[data-game]:visible").count() <= 1


def test_the_start_page_without_scripts_opens_every_field(servers, browser):
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 640})
    try:
        page = ctx.new_page()
        page.goto(servers[0] + "/")
        fields = page.locator("[data-seat-field]")
        assert fields.count() > 2 and all(fields.nth(i).is_visible() for i in range(fields.count()))
        assert page.locator("details[data-game]").count() == page.locator("details[data-game]:visible").count()
        assert not page.locator("[data-add-player]").is_visible()  # it needs the script
    finally:
        ctx.close()


def test_record_links_at_the_end_are_finger_sized(servers, phone):
    base = servers[0]
    _, steps = playout(GAMES["score_pad"], 3, random.Random("records"))
    table = played_table(base, "score_pad", steps)
    page = phone()
    for path in ("view", "history"):
        page.goto(f"{base}/t/{table['code']}/{path}")
        links = page.locator('a[href*="/players/"]')
        assert links.count() >= 3
        boxes = [links.nth(i).bounding_box() for i in range(links.count())]
        assert all(b["width"] >= 44 and b["height"] >= 44 for b in boxes), (path, boxes)
