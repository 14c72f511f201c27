"""Two phones play a whole DiceZ game by tapping while a table view follows live."""
from __future__ import annotations

import pytest
from tests.browser_fixtures import join_as, start_dicez_table, table_code
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ANN = [  # (dice, box, expected score)
    ([1, 1, 1, 2, 3], "ones", 3), ([2, 2, 2, 1, 3], "twos", 6), ([3, 3, 3, 1, 2], "threes", 9),
    ([4, 4, 4, 1, 2], "fours", 12), ([5, 5, 5, 1, 2], "fives", 15), ([6, 6, 6, 1, 2], "sixes", 18),
    ([6, 6, 6, 5, 5], "three_of_a_kind", 28), ([6, 6, 6, 6, 5], "four_of_a_kind", 29),
    ([2, 2, 3, 3, 3], "full_house", 25), ([1, 2, 3, 4, 6], "small_straight", 30),
    ([2, 3, 4, 5, 6], "large_straight", 40), ([4, 4, 4, 4, 4], "dicez", 50), ([6, 6, 6, 6, 5], "chance", 29),
]
BEN_DICE = [1, 2, 3, 4, 6]
BEN_SCORES = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 0, "sixes": 6, "three_of_a_kind": 0,
              "four_of_a_kind": 0, "full_house": 0, "small_straight": 30, "large_straight": 0, "dicez": 0,
              "chance": 16}


def tap_dice(page, dice):
    for i, value in enumerate(dice):
        page.locator(f'[data-testid="die-{i}-{value}"] + span').click()


def score(page, dice, box, expected):
    tap_dice(page, dice)
    button = page.locator(f'[data-testid="score-{box}"]')
    expect(button).to_have_text(str(expected))  # the preview shows what the box would score
    button.click()
    expect(page.locator(f'[data-testid="box-{box}"]')).to_have_text(str(expected))


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_two_phones_play_a_whole_game_and_the_table_view_shows_the_totals(servers, phone):
    first, second = servers
    host = phone()
    join_url = start_dicez_table(host, first, ["Ann", "Ben"])
    code = table_code(join_url)

    ann = phone()
    join_as(ann, join_url, "Ann")
    expect(ann.locator("h1.player")).to_contain_text("Ann")

    ben = phone()  # Ben's phone talks to the other server process
    join_as(ben, join_url.replace(first, second), "Ben")
    expect(ben.locator("h1.player")).to_contain_text("Ben")

    view = phone(viewport={"width": 1024, "height": 768}, is_mobile=False)
    view.goto(f"{second}/t/{code}/view")

    assert no_horizontal_scroll(ann) and no_horizontal_scroll(ben)
    for selector in ('[data-testid="die-0-1"] + span', '[data-testid="score-chance"]'):
        # measured in one step inside the page: a live refresh may swap the element at any moment
        width, height = ann.evaluate(
            "s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.width, r.height]; }",
            selector)
        assert width >= 44 and height >= 44

    for dice, box, expected in ANN:
        score(ann, dice, box, expected)
        if box == "ones":  # the screen stays on while the game is open
            expect(ann.locator("body")).to_have_attribute("data-wake-lock-held", "yes")
        score(ben, BEN_DICE, box, BEN_SCORES[box])

    ben_total = sum(BEN_SCORES.values())
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("329")
    expect(ben.locator('[data-testid="my-total"]')).to_have_text(str(ben_total))
    # the table view (on the other process) follows by polling (bench/bench_live.py measures how fast)
    expect(view.locator('[data-testid="view-total-0"]')).to_have_text("329", timeout=5000)
    expect(view.locator('[data-testid="view-total-1"]')).to_have_text(str(ben_total), timeout=5000)
    expect(view.locator('[data-testid="winners"]')).to_contain_text("Ann")
    # Ben's phone learns that the game is over without reloading
    expect(ben.locator('[data-testid="game-over"]')).to_contain_text("Ann wins with 329", timeout=5000)


def test_an_entry_on_one_phone_shows_on_the_other_within_two_seconds(servers, phone):
    first, second = servers
    host = phone()
    join_url = start_dicez_table(host, first, ["Cleo", "Dan"])
    cleo, dan = phone(), phone()
    join_as(cleo, join_url, "Cleo")
    join_as(dan, join_url.replace(first, second), "Dan")
    tap_dice(dan, [5, 5, 2, 2, 2])  # Dan is half-way through entering his dice ...
    score(cleo, [6, 6, 6, 6, 6], "dicez", 50)
    expect(dan.locator('[data-testid="total-0"]')).to_have_text("50", timeout=5000)
    # ... and the refresh kept what he had tapped: the preview still shows his full house
    expect(dan.locator('[data-testid="score-full_house"]')).to_have_text("25")
    dan.locator('[data-testid="score-full_house"]').click()
    expect(dan.locator('[data-testid="box-full_house"]')).to_have_text("25")
    dan.locator('[data-testid="undo"]').click()
    expect(dan.locator('[data-testid="score-full_house"]')).to_be_visible()
    # a refused tap says why, in place, and saves nothing: here a box tapped with only two dice entered
    tap_dice(dan, [3, 3])
    dan.locator('[data-testid="score-chance"]').click()
    expect(dan.locator('[data-testid="error"]')).to_contain_text("die 3")
    expect(dan.locator('[data-testid="score-chance"]')).to_be_visible()
    dan.reload()  # a refresh loses nothing
    expect(cleo.locator('[data-testid="box-dicez"]')).to_have_text("50")
    expect(dan.locator('[data-testid="total-0"]')).to_have_text("50")
