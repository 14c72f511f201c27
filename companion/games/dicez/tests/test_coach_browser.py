"""The live coach on a 360 x 640 phone: tapped dice rank the open boxes, best first, on the sheet."""
from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from tests.a11y import describe, violations
from tests.browser_fixtures import ROOT, _free_port, join_as, start_server, tap_dice

ARTIFACTS = ROOT / "test-artifacts"

pytestmark = pytest.mark.browser


def mine(found: list[dict]) -> list[dict]:
    """The axe violations on the box buttons the coach ranks (the sheet's other parts have their own tests)."""
    return [v for v in found if any("coach-rank" in n or "button[value=" in n for n in v["nodes"])]


@pytest.fixture(scope="module")
def coach_server(tmp_path_factory, coach_dir):
    tmp = tmp_path_factory.mktemp("coach-server")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / 'companion.sqlite'}", "SECRET_KEY": "browser-test-secret",
           "PYTHONPATH": str(ROOT), "DICEZ_COACH_DIR": str(coach_dir)}
    port = _free_port()
    proc = start_server(port, env, tmp / "server.log")
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


def test_live_coach_on_a_phone_marks_the_best_box_and_the_hold(coach_server, phone):
    host = phone()
    host.goto(coach_server + "/")
    host.fill('input[name="player0"]', "Ann")
    host.click("summary:has-text('DiceZ options')")
    host.check('input[name="dicez_roll_by_roll"]')
    host.check('input[name="dicez_coach"][value="live"]')
    host.click("text=Start the table")
    expect(host.locator('[data-testid="coach-ready"]')).to_be_visible()
    join_url = host.locator(".join-url").get_attribute("href")

    ann = phone()
    join_as(ann, join_url, "Ann")
    panel = ann.locator('[data-testid="coach"]')
    expect(panel.locator('[data-testid="coach-expected"]')).to_have_text("245.9")

    tap_dice(ann, [6, 6, 6, 6, 6])
    best = panel.locator('[data-testid="coach-dicez"]')
    expect(best).to_contain_text("★ DiceZ")
    expect(panel.locator("tbody tr").first).to_have_attribute("data-testid", "coach-dicez")  # best first
    assert ann.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    tap_dice(ann, [1, 2, 3, 4, 6])  # the first roll of the turn, not yet recorded
    expect(panel.locator('[data-testid="coach-hold"]')).to_contain_text("hold die 1, die 2, die 3, die 4")
    ann.locator('[data-testid="record-roll"]').click()
    expect(ann.locator(".roll").first).to_have_text("1 2 3 4 6")
    expect(panel.locator('[data-testid="coach-hold"]')).to_contain_text("After roll 1")
    box = panel.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360


def test_the_live_coach_answers_on_the_first_screen_of_a_turn(coach_server, phone):
    """Issue 34 item 8: on a 360 x 640 phone, with no scrolling, the tapped dice rank the open boxes
    in the box grid itself: each box says the final total it leads to and the best one is starred,
    the same ranking as the coach's full table further down."""
    host = phone()
    host.goto(coach_server + "/")
    host.fill('input[name="player0"]', "Ann")
    host.click("summary:has-text('DiceZ options')")
    host.check('input[name="dicez_coach"][value="live"]')
    host.click("text=Start the table")
    expect(host.locator('[data-testid="coach-ready"]')).to_be_visible()
    ann = phone()
    join_as(ann, host.locator(".join-url").get_attribute("href"), "Ann")

    tap_dice(ann, [3, 3, 3, 5, 5])
    best = ann.locator('[data-testid="coach-rank-full_house"]')
    expect(best).to_contain_text("★")
    assert ann.evaluate("window.scrollY") == 0
    viewport = ann.viewport_size
    ranked = ann.locator(".coach-rank")
    assert ranked.count() == 13  # every open box ranked
    for i in range(ranked.count()):
        box = ranked.nth(i).bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], "below the first screen"
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
    # the numbers on the boxes are the coach's own, best first in its table below
    table_rows = ann.locator('[data-testid="coach"] tbody tr')
    expect(table_rows.first).to_have_attribute("data-testid", "coach-full_house")
    on_table = table_rows.first.locator("td").nth(1).inner_text()
    assert best.inner_text().endswith(on_table)
    assert "best choice" in ann.locator('[data-testid="score-full_house"]').get_attribute("aria-label")
    found = mine(violations(ann))  # the small figures on the boxes are readable (contrast) in light mode
    assert not found, describe(found)
    ARTIFACTS.mkdir(exist_ok=True)
    ann.screenshot(path=str(ARTIFACTS / "dicez-coach-first-screen.png"))

    # the ranking follows the dice: a new throw moves the star
    tap_dice(ann, [6, 6, 6, 6, 6])
    expect(ann.locator('[data-testid="coach-rank-dicez"]')).to_contain_text("★")
    expect(ann.locator(".coach-rank.best")).to_have_count(1)


def test_in_roll_by_roll_the_ranked_boxes_still_fit_the_first_screen(coach_server, phone):
    """Roll by roll adds the rolls and the holds to the turn's screen: the ranked boxes stay on it."""
    host = phone()
    host.goto(coach_server + "/")
    host.fill('input[name="player0"]', "Ann")
    host.click("summary:has-text('DiceZ options')")
    host.check('input[name="dicez_roll_by_roll"]')
    host.check('input[name="dicez_coach"][value="live"]')
    host.click("text=Start the table")
    expect(host.locator('[data-testid="coach-ready"]')).to_be_visible()
    ann = phone()
    join_as(ann, host.locator(".join-url").get_attribute("href"), "Ann")
    tap_dice(ann, [2, 2, 4, 4, 4])
    expect(ann.locator(".coach-rank.best")).to_have_count(1)
    height = ann.viewport_size["height"]
    assert ann.evaluate("window.scrollY") == 0
    for i in range(ann.locator(".coach-rank").count()):
        box = ann.locator(".coach-rank").nth(i).bounding_box()
        assert box["y"] + box["height"] <= height, "a ranked box below the first screen"
    ARTIFACTS.mkdir(exist_ok=True)
    ann.screenshot(path=str(ARTIFACTS / "dicez-coach-roll-by-roll.png"))
    ann.emulate_media(color_scheme="dark")  # and in dark mode
    found = mine(violations(ann))
    assert not found, describe(found)
    ann.screenshot(path=str(ARTIFACTS / "dicez-coach-roll-by-roll-dark.png"))
