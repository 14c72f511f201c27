"""Pass and play hands the phone on (issue 34, item 5): on the one device of a DiceZ table, each turn
ends with a clear "Pass to <name>" step, and at 10 players every seat is one tap away on a 360 x 640
phone, with no sideways scrolling."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.a11y import screenshot
from tests.browser_fixtures import fill_players, tap_dice

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"]
# every seat tab inside the screen's width (none reached only by scrolling sideways)
TABS = """() => Array.from(document.querySelectorAll('.seat-tabs a')).map(a => {
  const r = a.getBoundingClientRect();
  return {name: a.textContent.trim(), inside: r.left >= 0 && r.right <= innerWidth, height: r.height};
})"""


def _start_pass_and_play(page, base) -> None:
    page.goto(base + "/")
    fill_players(page, NAMES)
    page.check('input[name="pass_and_play"]')
    page.click("text=Start the table")
    page.locator("a.button", has_text="Play").first.click()
    expect(page.locator("#sheet h1.player")).to_contain_text(NAMES[0])
    page.wait_for_load_state("load")  # its style sheets too


def _on_first_screen(locator) -> bool:
    box = locator.bounding_box()
    return box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 640


def test_each_turn_ends_by_passing_the_phone_to_the_next_player(servers, phone):
    page = phone()
    _start_pass_and_play(page, servers[0])
    tabs = page.evaluate(TABS)
    assert [t["name"] for t in tabs] == NAMES
    assert all(t["inside"] and t["height"] >= 44 for t in tabs), tabs
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    screenshot(page, "dicez-pass-and-play-10-seats")

    for seat, (dice, box) in enumerate([([3, 3, 3, 2, 2], "full_house"), ([6, 6, 6, 1, 2], "sixes"),
                                        ([1, 2, 3, 4, 5], "large_straight")]):
        name, following = NAMES[seat], NAMES[seat + 1]
        expect(page.locator("#sheet h1.player")).to_contain_text(name)
        expect(page.locator('[data-testid="hint"]')).to_contain_text("Your turn")
        expect(page.locator('[data-testid="pass-on"]')).to_have_count(0)
        tap_dice(page, dice)
        page.locator(f'[data-testid="score-{box}"]').click()
        step = page.locator('[data-testid="pass-on"]')
        expect(step).to_contain_text(f"Hand the phone to {following}.")
        button = page.locator(f'[data-testid="pass-to-{seat + 1}"]')
        expect(button).to_have_text(f"Pass to {following}")
        assert _on_first_screen(button)
        if seat == 0:
            screenshot(page, "dicez-pass-and-play-pass-to-ben")
        button.click()
    expect(page.locator("#sheet h1.player")).to_contain_text("Dan")
    expect(page.locator('[data-testid="hint"]')).to_contain_text("Your turn")

    # the last seat's turn passes the phone back round to the first
    page.locator(".seat-tabs a", has_text="Jo").click()
    expect(page.locator("#sheet h1.player")).to_contain_text("Jo")
    expect(page.locator('[data-testid="pass-to-3"]')).to_have_text("Pass to Dan")  # Dan's turn, not Jo's
