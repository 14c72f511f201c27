"""The edition editor on a 360 x 640 phone (issue 12): the picture of a sheet side never scrolls
sideways. The phone shows one half of the side at a time (columns 1-6 or 7-12), switched by two
tabs; every square of both halves of both sides is on the screen when its half is shown, 44 px or
more and not covered by anything, and a topping put on the right half is in the saved edition,
with JavaScript (a tap paints it) and without (its letter is typed). An owner copying a box may
show each side whole instead: then all 12 columns of both sides are on the screen at once, smaller
(at least 24 px, WCAG 2.2's smallest tap target) but still not covered and not scrolling sideways."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from companion.games.dice_and_slice.tests.test_browser import ARTIFACTS, tid

pytestmark = pytest.mark.browser
WIDTH = 360
HALVES = {"left": range(0, 6), "right": range(6, 12)}

# every square of the side drawn now, as the phone shows it (its frame brought into view first)
SHOWN_SQUARES = """side => {
  const frame = document.querySelector(`[data-testid="pad${side}"]`);
  frame.scrollIntoView({block: "center"});
  const squares = [...frame.querySelectorAll("input.ds-sq")].filter(sq => sq.checkVisibility());
  return {frame: {scroll: frame.scrollWidth, client: frame.clientWidth},
          page: document.scrollingElement.scrollWidth,
          squares: squares.map(sq => {
            const r = sq.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return {name: sq.name, w: r.width, h: r.height, left: r.left, right: r.right, top: r.top,
                    bottom: r.bottom, hit: hit === sq};
          })};
}"""


def _names(side: str, columns) -> set[str]:
    return {f"sq{side}_{cx}_{cy}" for cx in columns for cy in range(9)}


def _exported_rows(page, base: str, name: str, side: str) -> tuple[dict, list[str]]:
    edition = json.loads(page.request.get(f"{base}/dice-and-slice/editions/export/{name}").body())["edition"]
    return edition["sides"][side]["legend"], edition["sides"][side]["rows"]


def test_every_square_of_both_halves_is_reachable_at_360_px_without_sideways_scrolling(servers, phone):
    page = phone()
    page.goto(servers[0] + "/dice-and-slice/editions/new")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= WIDTH
    for side in "AB":
        for half, columns in HALVES.items():
            tid(page, f"half{side}-{half}").click()
            shown = page.evaluate(SHOWN_SQUARES, side)
            assert shown["page"] <= WIDTH, shown["page"]
            assert shown["frame"]["scroll"] <= shown["frame"]["client"], shown["frame"]
            squares = shown["squares"]
            assert {sq["name"] for sq in squares} == _names(side, columns)  # this half, all of it
            for sq in squares:
                assert sq["w"] >= 44 and sq["h"] >= 44, sq
                assert 0 <= sq["left"] and sq["right"] <= WIDTH and 0 <= sq["top"] and sq["bottom"] <= 640, sq
                assert sq["hit"], f"{sq['name']} is covered"
            if side == "A":
                ARTIFACTS.mkdir(exist_ok=True)
                tid(page, f"pad{side}").locator("xpath=../..").screenshot(
                    path=str(ARTIFACTS / f"dice_and_slice-editor-360-{half}.png"))


def test_each_side_whole_shows_every_square_at_once_without_sideways_scrolling(servers, phone):
    page = phone()
    page.goto(servers[0] + "/dice-and-slice/editions/new")
    tid(page, "whole-sheet").click()
    expect(tid(page, "halfA-right")).to_be_hidden()  # no halves to switch
    for side in "AB":
        shown = page.evaluate(SHOWN_SQUARES, side)
        assert shown["page"] <= WIDTH and shown["frame"]["scroll"] <= shown["frame"]["client"], shown
        assert {sq["name"] for sq in shown["squares"]} == _names(side, range(12))
        for sq in shown["squares"]:
            assert sq["w"] >= 24 and sq["h"] >= 24 and sq["hit"], sq
            assert 0 <= sq["left"] and sq["right"] <= WIDTH and 0 <= sq["top"] and sq["bottom"] <= 640, sq
        tid(page, f"pad{side}").locator("xpath=../..").screenshot(path=str(ARTIFACTS / f"dice_and_slice-editor-360-whole-{side}.png"))
    page.goto(servers[0] + "/dice-and-slice/editions/new?from=blank")  # this phone keeps the choice
    expect(tid(page, "whole-sheet").locator("input")).to_be_checked()
    expect(tid(page, "halfA-right")).to_be_hidden()


def test_a_topping_tapped_on_the_right_half_is_saved(servers, phone):
    base = servers[0]
    page = phone()
    page.goto(base + "/dice-and-slice/editions/new")  # a copy of the default edition
    tid(page, "edition-name").fill("Right half tapped")
    page.fill('input[name="label"]', "Our box")
    tid(page, "brushes").locator(".ds-brush", has_text="basil").click()
    square = tid(page, "sqB-10-4")  # side B, row 5, square 11: empty on the default sheet
    expect(square).to_be_hidden()  # the left half is shown first
    tid(page, "halfB-right").click()
    expect(tid(page, "sqB-0-4")).to_be_hidden()
    square.click()
    expect(square).to_have_value("B")
    tid(page, "save-edition").click()
    expect(tid(page, "saved")).to_be_visible()
    legend, rows = _exported_rows(page, base, "Right half tapped", "B")
    assert legend[rows[4][10]] == "basil"


def test_without_javascript_the_halves_switch_and_a_typed_letter_is_saved(servers, phone):
    base = servers[0]
    page = phone(java_script_enabled=False)
    page.goto(base + "/dice-and-slice/editions/new")
    tid(page, "edition-name").fill("Right half typed")
    page.fill('input[name="label"]', "Our box")
    tid(page, "halfA-right").click()  # the tabs are radio buttons read by the style sheet
    expect(tid(page, "sqA-0-0")).to_be_hidden()
    tid(page, "sqA-10-5").fill("O")  # side A, row 6, square 11: an olive
    assert page.evaluate("document.scrollingElement.scrollWidth") <= WIDTH
    tid(page, "save-edition").click()
    expect(tid(page, "saved")).to_be_visible()
    legend, rows = _exported_rows(page, base, "Right half typed", "A")
    assert legend[rows[5][10]] == "olive"
