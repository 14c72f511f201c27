"""No htmx errors in a phone's console while it plays (issue 34 item 11): a Dice and Slice sheet
refreshing after another device's entry, and a Score pad entry with the refreshes it brings, on
360 x 640 phones against real servers and Chromium."""
from __future__ import annotations


import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import join_as, settle
from companion.games.dice_and_slice.tests.test_browser import api

pytestmark = pytest.mark.browser


def watch_console(page) -> list[str]:
    """Every error the page's console shows, and anything htmx logs (its errors name htmx:…Error)."""
    seen = []
    page.on("console", lambda m: seen.append(f"{m.type}: {m.text}")
            if m.type == "error" or "htmx" in m.text.lower() else None)
    page.on("pageerror", lambda exc: seen.append(f"page error: {exc}"))
    return seen


def seat_token(page, code: str) -> str:
    return next(c["value"] for c in page.context.cookies() if c["name"] == f"seat_{code}")


def test_a_dice_and_slice_sheet_refreshes_without_htmx_errors(servers, phone):
    base = servers[0]
    table = api(base, "/api/tables", {"game": "dice_and_slice", "players": ["Ann", "Ben"], "seat_tokens": False})
    code = table["code"]
    ann, ben = phone(), phone()
    join_as(ann, table["join_url"], "Ann")
    join_as(ben, table["join_url"], "Ben")
    said = {"Ann": watch_console(ann), "Ben": watch_console(ben)}
    token = seat_token(ann, code)
    # Ann's roll and choice reach both phones as live refreshes of their sheets
    api(base, f"/api/tables/{code}/entries", {"kind": "roll", "faces": {"A": 6, "B": 3}}, token)
    for page in (ann, ben):
        settle(page, base, code)
    api(base, f"/api/tables/{code}/entries", {"kind": "choose", "die": "B"}, token)
    for page in (ann, ben):
        settle(page, base, code)
    expect(ben.locator('[data-testid="my-die"]')).to_have_text("die A")
    assert said == {"Ann": [], "Ben": []}


def test_a_score_pad_entry_brings_no_htmx_errors(servers, phone):
    base = servers[0]
    table = api(base, "/api/tables", {"game": "score_pad", "players": ["Ann", "Ben"], "seat_tokens": False,
                                      "options": {"rounds": 2}})
    code = table["code"]
    ann, ben = phone(), phone()
    join_as(ann, table["join_url"], "Ann")
    join_as(ben, table["join_url"], "Ben")
    said = {"Ann": watch_console(ann), "Ben": watch_console(ben)}
    # two rounds to the end: each phone waits, opens the next round, and at last shows the result
    for page, points in ((ann, 12), (ben, 7), (ben, 5), (ann, 1)):
        page.locator('[data-testid="points"]').fill(str(points))
        page.locator('[data-testid="enter-score"]').click()
        for each in (ann, ben):
            settle(each, base, code)
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("13")
    expect(ben.locator('[data-testid="my-total"]')).to_have_text("12")
    expect(ben.locator('[data-testid="game-over"]')).to_contain_text("Ann wins with 13")
    assert said == {"Ann": [], "Ben": []}
