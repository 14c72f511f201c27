"""Issue 34, item 1: every game's offline path records exactly what the player tapped. Each game's
phone goes offline, enters two turns' taps (as many as the phone can take without the server's
answer), comes back, and the server's log equals what was tapped, entry for entry; each kept tap shows
on the sheet at once as kept. (DiceZ: tests/platform/test_offline_taps.py.) Real servers, real Chromium
in Playwright's offline mode, phone-sized; screenshots of the changed screens go to test-artifacts/."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import fill_players, join_as, table_code
from tests.platform.test_offline_taps import WAITING, entries, go_offline, settled, snap

pytestmark = pytest.mark.browser


def tid(page, name):
    return page.locator(f'[data-testid="{name}"]')


def back_online(page) -> None:
    """The connection returns with the page open: the kept taps go out by themselves."""
    page.context.set_offline(False)
    expect(tid(page, "taps-waiting")).to_have_count(0)
    expect(tid(page, "offline")).to_have_count(0)


# ---- Score pad --------------------------------------------------------------------------------
def start_score_pad(host, base: str, names, rounds: int) -> str:
    host.goto(base + "/")
    host.check('input[name="game"][value="score_pad"]')
    fill_players(host, names)
    host.locator("summary", has_text="Score pad options").click()
    host.fill('input[name="score_pad_rounds"]', str(rounds))
    host.click("text=Start the table")
    return host.locator(".join-url").get_attribute("href")


def test_score_pad_offline_entries_show_as_kept_and_a_second_tap_on_enter_is_no_new_round(servers, phone):
    base = servers[0]
    join = start_score_pad(phone(), base, ["Cleo"], rounds=3)
    cleo = phone()
    join_as(cleo, join, "Cleo")
    settled(cleo)
    go_offline(cleo)
    points, enter = tid(cleo, "points"), tid(cleo, "enter-score")
    points.fill("17")
    enter.click()
    # kept, and the sheet says so at once: the round's cell shows it as kept, the entry moved on
    expect(tid(cleo, "cell-1-0")).to_have_text("17")
    expect(tid(cleo, "cell-1-0")).to_have_attribute("data-kept", "yes")
    expect(cleo.locator("label[for=points]")).to_have_text("Round 2 of 3: your score")
    expect(points).to_have_value("")
    expect(tid(cleo, "kept")).to_have_text("Kept on this phone: 17 for round 1. It is sent once the connection is back.")
    # the tester's second tap on Enter (or the keyboard's Enter) is no new round with the same score
    expect(enter).to_be_disabled()
    points.press("Enter")
    expect(cleo.locator(WAITING)).to_have_text("1 tap waiting for the connection")
    snap(cleo, "offline-score-pad-kept")
    points.fill("9")
    enter.click()
    expect(tid(cleo, "cell-2-0")).to_have_text("9")
    expect(cleo.locator(WAITING)).to_have_text("2 taps waiting for the connection")
    assert entries(base, table_code(join)) == []
    cleo.reload()  # without a connection: the sheet as last seen, with both kept
    expect(tid(cleo, "offline")).to_contain_text("last saw it")
    expect(tid(cleo, "cell-1-0")).to_have_attribute("data-kept", "yes")
    expect(tid(cleo, "cell-2-0")).to_have_attribute("data-kept", "yes")
    expect(cleo.locator("label[for=points]")).to_have_text("Round 3 of 3: your score")
    back_online(cleo)
    expect(tid(cleo, "my-total")).to_have_text("26")
    expect(tid(cleo, "cell-2-0")).not_to_have_attribute("data-kept", "yes")
    assert [(e["kind"], e["points"]) for e in entries(base, table_code(join))] == [("score", 17), ("score", 9)]
