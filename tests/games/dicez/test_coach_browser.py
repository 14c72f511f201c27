"""The live coach on a 360 x 640 phone: tapped dice rank the open boxes, best first, on the sheet."""
from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import ROOT, _free_port, join_as, start_server, tap_dice

pytestmark = pytest.mark.browser


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
