"""Screen readers and keyboards after an entry (issue 12, items 5 and 7): the live region stays the
same element and only its text changes, so what changed is read out; keyboard focus returns to a
control instead of falling back to the top of the page; Undo says what it did, also without htmx."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.a11y import api
from tests.browser_fixtures import settle

pytestmark = pytest.mark.browser  # every test here starts Chromium


def _pad_phone(phone, base, players=("Ann", "Ben")):
    status, table = api(base, "/api/tables", {"game": "score_pad", "players": list(players)})
    assert status == 201
    page = phone()
    page.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][0]["token"], "url": base}])
    page.goto(f"{base}/t/{table['code']}/s/0")
    return page, table


def _enter_by_keyboard(page, points):
    page.locator('[data-testid="points"]').fill(str(points))
    page.locator('[data-testid="points"]').press("Enter")


def test_the_live_region_stays_and_says_the_new_total(servers, phone):
    page, table = _pad_phone(phone, servers[0])
    page.evaluate("() => { document.getElementById('announce').dataset.mark = 'kept'; }")
    _enter_by_keyboard(page, 12)
    expect(page.locator('[data-testid="my-total"]')).to_have_text("12")
    announce = page.locator('#announce[data-mark="kept"]')  # the very element the page started with
    expect(announce).to_contain_text("Total 12")
    assert page.locator("#announce").count() == 1


def test_an_entry_arriving_live_is_read_out_in_the_same_region_about_the_readers_own_turn(servers, phone):
    status, table = api(servers[0], "/api/tables", {"game": "dicez", "players": ["Ann", "Ben"]})  # seat order
    assert status == 201
    page = phone()
    page.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][0]["token"],
                               "url": servers[0]}])
    assert api(servers[0], f"/api/tables/{table['code']}/entries", {"kind": "score", "category": "ones",
               "dice": [1, 2, 3, 4, 5]}, table["seats"][0]["token"])[0] == 201  # Ann played: Ben's turn
    page.goto(f"{servers[0]}/t/{table['code']}/s/0")
    page.evaluate("() => { document.getElementById('announce').dataset.mark = 'kept'; }")
    status, _ = api(servers[0], f"/api/tables/{table['code']}/entries",
                    {"kind": "score", "category": "chance", "dice": [6, 6, 5, 5, 4]}, table["seats"][1]["token"])
    assert status == 201
    settle(page, servers[0], table["code"])
    expect(page.locator('[data-testid="total-1"]')).to_have_text("26")
    # what Ann must do now is read out in the same region; the scoreboard is not read on every change
    expect(page.locator('#announce[data-mark="kept"]')).to_contain_text("Your turn")
    assert "Ben" not in page.locator("#announce").inner_text()


def test_focus_returns_to_a_control_after_an_entry(servers, phone):
    page, table = _pad_phone(phone, servers[0])
    _enter_by_keyboard(page, 7)
    expect(page.locator('[data-testid="my-total"]')).to_have_text("7")
    page.wait_for_timeout(300)
    focused = page.evaluate("() => document.activeElement && document.activeElement.closest('#sheet') !== null")
    assert focused, page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)")
    # and a player who keeps going by keyboard lands on a control of the new sheet
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement !== document.body")


def test_undo_says_what_was_taken_back(servers, phone):
    page, table = _pad_phone(phone, servers[0])
    _enter_by_keyboard(page, 25)
    expect(page.locator('[data-testid="my-total"]')).to_have_text("25")
    expect(page.locator('[data-testid="undo-done"]')).to_be_hidden()
    page.locator('[data-testid="undo"]').click()
    done = page.locator('[data-testid="undo-done"]')
    expect(done).to_have_text("Undone: your last entry was taken back. Your total is now 0 (it was 25).")
    expect(page.locator("#announce")).to_have_text(re.compile("^Undone: your last entry was taken back"))
    _enter_by_keyboard(page, 4)  # the next entry: the confirmation has been read
    expect(done).to_be_hidden()


def test_undo_without_javascript_confirms_on_the_page_it_lands_on(servers, browser):
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 640})
    try:
        page = ctx.new_page()
        status, table = api(servers[0], "/api/tables", {"game": "score_pad", "players": ["Ann", "Ben"]})
        ctx.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][0]["token"], "url": servers[0]}])
        assert api(servers[0], f"/api/tables/{table['code']}/entries", {"kind": "score", "points": 9},
                   table["seats"][0]["token"])[0] == 201
        page.goto(f"{servers[0]}/t/{table['code']}/s/0")
        expect(page.locator('[data-testid="undo-done"]')).to_be_hidden()
        page.locator('[data-testid="undo"]').click()
        expect(page.locator('[data-testid="undo-done"]')).to_have_text("Undone: your last entry was taken back.")
        expect(page.locator('[data-testid="my-total"]')).to_have_text("0")
    finally:
        ctx.close()
