"""Two phones keep a three-round Score pad while the table view follows live (SP-4, SP-5, SP-7, SP-11)."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import fill_players, join_as, table_code

pytestmark = pytest.mark.browser


def start_score_pad(host, base: str, names, rounds: int) -> str:
    """On the host's phone, start a Score pad of `rounds` rounds; return the join URL it shows."""
    host.goto(base + "/")
    host.check('input[name="game"][value="score_pad"]')
    fill_players(host, names)
    host.locator("summary", has_text="Score pad options").click()
    host.fill('input[name="score_pad_rounds"]', str(rounds))
    host.click("text=Start the table")
    return host.locator(".join-url").get_attribute("href")


def type_and_enter(page, points: int) -> None:
    page.locator('[data-testid="points"]').fill(str(points))
    page.locator('[data-testid="enter-score"]').click()


def test_two_phones_keep_score_and_the_table_view_shows_the_totals_and_the_winner(servers, phone):  # SP-4 SP-5 SP-7 SP-11
    first, second = servers
    host = phone()
    join_url = start_score_pad(host, first, ["Ann", "Ben"], rounds=3)
    code = table_code(join_url)
    ann, ben = phone(), phone()
    join_as(ann, join_url, "Ann")
    join_as(ben, join_url.replace(first, second), "Ben")  # Ben's phone talks to the other server process
    expect(ann.locator("h1.player")).to_contain_text("Ann")
    expect(ben.locator("h1.player")).to_contain_text("Ben")
    view = phone(viewport={"width": 1024, "height": 768}, is_mobile=False)
    view.goto(f"{second}/t/{code}/view")
    assert ann.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # round 1: Ann types her score; Ben taps the quick buttons up to 21
    type_and_enter(ann, 12)
    expect(ann.locator('[data-testid="entered"]')).to_contain_text("You entered 12 for round 1")
    for step, shows in (("+10", "10"), ("+10", "20"), ("+1", "21")):
        ben.locator(f'[data-testid="adjust{step}"]').click()
        expect(ben.locator('[data-testid="points"]')).to_have_value(shows)
    expect(ben.locator('[data-testid="points"]')).to_have_value("21")
    expect(ben.locator('[data-testid="total-after"]')).to_have_text("21")
    ben.locator('[data-testid="enter-score"]').click()
    expect(ben.locator('[data-testid="my-total"]')).to_have_text("21")

    # Ann's phone, which was waiting, opens round 2 by itself once Ben's score is in
    expect(ann.locator('[data-testid="points"]')).to_be_visible(timeout=5000)
    expect(ann.locator("label.entry-label")).to_have_text("Round 2 of 3: your score")

    # round 2: Ben starts typing; Ann's entry reaches his phone without wiping what he typed
    ben.locator('[data-testid="points"]').fill("3")
    ann.locator('[data-testid="points"]').fill("-5")
    ann.locator('[data-testid="points"]').press("Enter")
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("7")
    expect(ben.locator('[data-testid="total-0"]')).to_have_text("7", timeout=5000)
    expect(ben.locator('[data-testid="points"]')).to_have_value("3")
    ben.locator('[data-testid="points"]').fill("30")
    expect(ben.locator('[data-testid="total-after"]')).to_have_text("51")
    ben.locator('[data-testid="enter-score"]').click()
    expect(ben.locator('[data-testid="my-total"]')).to_have_text("51")

    # round 3, the last: the game ends and both phones and the table view say who won
    expect(ann.locator("label.entry-label")).to_have_text("Round 3 of 3: your score", timeout=5000)
    type_and_enter(ann, 8)
    expect(ben.locator("label.entry-label")).to_have_text("Round 3 of 3: your score")
    type_and_enter(ben, 0)
    expect(ben.locator('[data-testid="game-over"]')).to_have_text("Game over. Ben wins with 51.")
    expect(ann.locator('[data-testid="game-over"]')).to_have_text("Game over. Ben wins with 51.", timeout=5000)
    expect(ann.locator('[data-testid="points"]')).to_have_count(0)
    expect(view.locator('[data-testid="view-total-0"]')).to_have_text("15", timeout=5000)
    expect(view.locator('[data-testid="view-total-1"]')).to_have_text("51")
    expect(view.locator('[data-testid="view-cell-2-0"]')).to_have_text("-5")
    expect(view.locator('[data-testid="winners"]')).to_have_text("Final. Ben wins with 51.")
