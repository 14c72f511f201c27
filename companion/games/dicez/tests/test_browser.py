"""Two phones play a whole DiceZ game by tapping while a table view follows live; a whole turn fits
one 360 x 640 screen; turn order on every phone. Screenshots of the sheet go to test-artifacts/."""
from __future__ import annotations

import pytest
from tests.browser_fixtures import ROOT, join_as, start_dicez_table, table_code, tap_dice
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
    for selector in ('[data-testid="face-1"]', '[data-testid="die-0"]', '[data-testid="score-chance"]'):
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
    # a refused tap says what is missing, in place, keeps the dice and saves nothing: here a box
    # tapped with only two dice entered
    tap_dice(dan, [3, 3])
    dan.locator('[data-testid="score-chance"]').click()
    expect(dan.locator('[data-testid="hint"]')).to_have_text("Your turn. Enter die 3 first.")
    expect(dan.locator('[data-testid="die-1"]')).to_have_attribute("aria-label", "Die 2: 3")
    expect(dan.locator('[data-testid="score-chance"]')).to_be_visible()
    dan.reload()  # a refresh loses nothing
    expect(cleo.locator('[data-testid="box-dicez"]')).to_have_text("50")
    expect(dan.locator('[data-testid="total-0"]')).to_have_text("50")


ARTIFACTS = ROOT / "test-artifacts"

# Everything a turn needs, measured inside the page in one step (a live refresh may swap an element
# at any moment): the page does not scroll, every die control and box is inside the viewport, and
# every button is at least 44 x 44 px.
ONE_SCREEN = """() => {
  const problems = [];
  const page = document.scrollingElement;
  if (page.scrollHeight > innerHeight) problems.push('the page scrolls: ' + page.scrollHeight + ' px');
  const controls = [...document.querySelectorAll('#sheet [data-slot], #sheet [data-clear], #sheet [data-face], #boxes .box')];
  for (const el of controls) {
    const name = el.dataset.testid || el.textContent.trim().slice(0, 20);
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) problems.push(name + ' is off screen');
    const button = el.matches('button') ? el : el.querySelector('button');
    const t = button && button.getBoundingClientRect();
    if (t && (t.width < 44 || t.height < 44)) problems.push(name + ' is ' + t.width + ' x ' + t.height + ' px');
  }
  return {problems, controls: controls.length};
}"""
CONTROLS = 5 + 1 + 6 + 15  # five slots, clear, six faces, thirteen boxes with the bonus and the total
IDLE = "() => !document.querySelector('.htmx-request')"


def fits_one_screen(page) -> None:
    page.wait_for_function(IDLE)
    measured = page.evaluate(ONE_SCREEN)
    assert measured["controls"] == CONTROLS and measured["problems"] == []


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"dicez-phone-{name}.png"))


def slots(page) -> list[str]:
    return [page.locator(f'[data-testid="die-{i}"]').get_attribute("aria-label") for i in range(5)]


def sheet_ready(page, name: str) -> None:
    page.wait_for_load_state("load")  # its style sheets are in
    expect(page.locator("h1.player")).to_contain_text(name)
    expect(page.locator("#live")).to_have_attribute("data-live", "open")


def test_a_whole_turn_fits_one_phone_screen_and_the_sheet_is_ready_for_the_next(servers, phone):  # DZ-3 DZ-19 DZ-20
    first, _ = servers
    join_url = start_dicez_table(phone(), first, ["Ann", "Ben"])
    ann, ben = phone(), phone()
    join_as(ann, join_url, "Ann")
    join_as(ben, join_url, "Ben")
    sheet_ready(ann, "Ann")
    sheet_ready(ben, "Ben")
    expect(ann.locator('[data-testid="hint"]')).to_have_text("Your turn. Enter your five dice.")
    expect(ben.locator('[data-testid="hint"]')).to_have_text("Ann's turn — wait for Ann.")
    fits_one_screen(ann)
    shoot(ben, "out-of-turn")

    for face in (6, 6, 6, 2):  # four dice, then a box: a hint, not an error, and the four stay
        ann.locator(f'[data-testid="face-{face}"]').click()
        fits_one_screen(ann)
    ann.locator('[data-testid="score-full_house"]').click()
    expect(ann.locator('[data-testid="hint"]')).to_have_text("Your turn. Enter die 5 first.")
    expect(ann.locator('[data-testid="error"]')).to_have_count(0)
    assert slots(ann) == ["Die 1: 6", "Die 2: 6", "Die 3: 6", "Die 4: 2", "Die 5: not entered"]
    fits_one_screen(ann)
    shoot(ann, "refused-tap")

    ann.locator('[data-testid="die-3"]').click()  # change die 4, then the fifth
    ann.locator('[data-testid="face-5"]').click()
    ann.locator('[data-testid="face-5"]').click()
    expect(ann.locator('[data-testid="score-full_house"]')).to_have_text("25")
    assert slots(ann)[3:] == ["Die 4: 5", "Die 5: 5"]
    fits_one_screen(ann)
    shoot(ann, "dice-entered")

    ann.locator('[data-testid="score-full_house"]').click()
    expect(ann.locator('[data-testid="box-full_house"]')).to_have_text("25")
    assert slots(ann) == [f"Die {i}: not entered" for i in range(1, 6)]
    assert ann.evaluate("scrollY") == 0
    assert ann.evaluate("document.activeElement.dataset.testid") == "face-1"  # ready for die 1
    expect(ann.locator('[data-testid="hint"]')).to_have_text("Ben's turn — wait for Ben.")
    fits_one_screen(ann)
    shoot(ann, "after-scoring")

    # Ben is told it is his turn; Ann, out of turn, is refused with the reason and keeps her dice
    expect(ben.locator('[data-testid="hint"]')).to_have_text("Your turn. Enter your five dice.")
    tap_dice(ann, [1, 2, 3, 4, 5])
    ann.locator('[data-testid="score-large_straight"]').click()
    expect(ann.locator('[data-testid="error"]')).to_have_text(
        "It is Ben's turn: turns go in seat order, so wait for Ben. (rule DZ-20)")
    assert slots(ann)[4] == "Die 5: 5"
    expect(ann.locator('[data-testid="box-large_straight"]')).to_have_count(0)
    tap_dice(ben, [1, 2, 3, 4, 5])
    ben.locator('[data-testid="score-large_straight"]').click()
    expect(ben.locator('[data-testid="box-large_straight"]')).to_have_text("40")
    expect(ann.locator('[data-testid="hint"]')).to_contain_text("Your turn.")


def test_a_ten_seat_table_still_fits_and_dark_mode_is_shot(servers, phone):  # DZ-1
    first, _ = servers
    names = [f"P{i}" for i in range(1, 11)]
    join_url = start_dicez_table(phone(), first, names)
    ten = phone(color_scheme="dark")
    join_as(ten, join_url, "P10")
    sheet_ready(ten, "P10")
    tap_dice(ten, [3, 3, 3, 4, 4])
    expect(ten.locator('[data-testid="score-full_house"]')).to_have_text("25")
    fits_one_screen(ten)
    assert ten.evaluate("document.documentElement.scrollWidth <= innerWidth")  # the totals row scrolls itself
    expect(ten.locator('[data-testid="hint"]')).to_have_text("P1's turn — wait for P1.")
    shoot(ten, "ten-seats-dark")


def test_roll_by_roll_fits_the_same_screen_with_its_rolls_and_holds(servers, phone):  # DZ-2 DZ-3
    """The house rule adds the rolls recorded so far and a hold toggle per die: still one screen."""
    from tests.a11y import api

    first, _ = servers
    status, table = api(first, "/api/tables", {"game": "dicez", "players": ["Ann", "Ben"],
                                               "options": {"roll_by_roll": True}})
    assert status == 201
    ann = phone()
    ann.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][0]["token"], "url": first}])
    ann.goto(f"{first}/t/{table['code']}/s/0")
    sheet_ready(ann, "Ann")
    fits_one_screen(ann)
    for roll, dice in enumerate([[1, 2, 3, 4, 6], [1, 2, 3, 4, 5]], start=1):
        tap_dice(ann, dice)
        fits_one_screen(ann)
        ann.locator('[data-testid="record-roll"]').click()
        expect(ann.locator('[data-testid="rolls"]')).to_contain_text(f"Roll {roll} of 3 recorded")
        fits_one_screen(ann)
        hold = ann.locator('[data-testid="hold-0"]').locator("xpath=..").bounding_box()
        assert hold["height"] >= 44 and hold["y"] + hold["height"] <= 640
    shoot(ann, "roll-by-roll")
