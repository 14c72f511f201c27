"""A Dice and Slice sheet on a 360 x 640 phone while placing: the ghost's controls and "Place here"
stay on screen in a sticky bar while the pattern moves, every control is a 44 px target, the sheet's
picture holds no links (a tap on it is only a shortcut), and the prompts speak in words, not
coordinates (DS-5, DS-11). Screenshots go to test-artifacts/."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from companion.games.dice_and_slice.tests.test_browser import ARTIFACTS, api, big_enough, no_horizontal_scroll, tap_dot, tid

pytestmark = pytest.mark.browser
COORDINATES = re.compile(r"\(\d+ ?, ?\d+\)")


def in_viewport(page, locator) -> bool:
    """Is the control wholly on screen? Measured once the sheet's swap is done."""
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")
    height = page.viewport_size["height"]
    for _ in range(20):  # the fragment may be replaced while measuring: measure again
        box = locator.bounding_box(timeout=1000)
        if box is not None:
            return box["y"] >= 0 and box["y"] + box["height"] <= height
        page.wait_for_timeout(100)
    return False


def test_placing_keeps_the_controls_on_screen_with_big_targets_and_words(servers, phone):
    base = servers[0]
    table = api(base, "/api/tables", {"game": "dice_and_slice", "players": ["Ann"], "seat_tokens": False})
    ann = phone()
    ann.goto(table["join_url"])
    ann.click("text=I am Ann")
    ann.locator('[data-testid="face-A-6"] + span').click()
    ann.locator('[data-testid="face-B-3"] + span').click()
    tid(ann, "enter-roll").click()
    tid(ann, "choose-B").click()  # die B face 3: a 2 x 2 block

    expect(tid(ann, "prompt")).to_contain_text("Tap the sheet where your pattern goes, or move it with the arrows")
    sheet = tid(ann, "tap-sheet")
    assert sheet.get_attribute("role") == "img" and sheet.locator("a").count() == 0  # no links inside a picture
    for control in ("rotate", "move-left", "move-up", "move-down", "move-right", "place"):
        assert big_enough(tid(ann, control)), control
    ann.evaluate("window.scrollTo(0, 0)")  # the top of the page, as it opens
    for move in ("move-right", "move-right", "move-down", "rotate", "move-left"):
        before = tid(ann, "verdict").inner_text()
        tid(ann, move).click()
        expect(tid(ann, "verdict")).not_to_have_text(before) if move == "rotate" else None
        for control in ("place", "move-up", "move-down", "rotate", "verdict"):
            assert in_viewport(ann, tid(ann, control)), f"{control} off screen after {move}"
        assert not COORDINATES.search(tid(ann, "verdict").inner_text())
    assert no_horizontal_scroll(ann)
    ARTIFACTS.mkdir(exist_ok=True)
    ann.screenshot(path=str(ARTIFACTS / "dice_and_slice-phone-placing.png"))

    # a tap on the picture jumps the ghost there; the verdict says what Place here will do
    tap_dot(ann, 2, 0)
    expect(tid(ann, "verdict")).to_have_text(re.compile(r"Place here marks 4 new dots, and closes a 1-square slice"))
    tid(ann, "place").click()
    # DS-11: the mushroom in square (2,0) pays a bonus dot; the prompt says what to do in words
    expect(tid(ann, "prompt")).to_contain_text("You may put one extra dot on any empty dot of your sheet")
    expect(tid(ann, "verdict")).to_contain_text("Place bonus dot marks the blue dot,")
    assert not COORDINATES.search(tid(ann, "verdict").inner_text() + tid(ann, "prompt").inner_text())
    assert not COORDINATES.search(ann.locator(".ds-confirm").inner_text())
    for move in ("move-down", "move-down", "move-right"):
        tid(ann, move).click()
        assert in_viewport(ann, tid(ann, "place-bonus")) and in_viewport(ann, tid(ann, "skip-bonus"))
    for control in ("move-up", "place-bonus", "skip-bonus"):
        assert big_enough(tid(ann, control)), control
    ann.screenshot(path=str(ARTIFACTS / "dice_and_slice-phone-bonus.png"))
    tid(ann, "place-bonus").click()
    expect(ann.locator(".ds-top.used")).to_have_count(1)
